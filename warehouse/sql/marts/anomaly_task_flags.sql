-- anomaly_task_flags: private tasks whose success rate jumped in a month across several submitters
-- (suspected leak; the next rotation should retire or perturb them). A (task, month) is flagged when
--   * at least 3 distinct submitters passed it that month,
--   * it had at least 5 attempts in earlier months,
--   * its success rate rose by at least 0.5 over its earlier months' pooled rate, and
--   * that rise beats the month's median rise over all tasks by at least 0.4, so that agents
--     getting better at everything does not flag every task, and
--   * the rise is outside the noise the leaderboard reports (the same model as its separable_from_next):
--     the month's 95% Wilson interval lies wholly above that of the earlier months' pooled runs.
-- depends: run_facts
-- grain: task_id, month
-- check: submitters_passed >= 3 and prior_attempts >= 5 and jump >= 0.5
-- check: jump - month_median_jump >= 0.4 and success_rate_ci_low > prior_ci_high
with facts as (
    select * from run_facts
    where split_kind = 'private' and attempted
),

params as (
    select 3 as min_submitters_passed, 5 as min_prior_attempts, 0.5 as min_jump, 0.4 as min_excess_jump
),

task_months as (
    select
        task_id,
        server,
        split as month,
        count(*) as attempts,
        count(*) filter (where passed) as passes,
        count(distinct submitter) as submitters,
        count(distinct submitter) filter (where passed) as submitters_passed
    from facts
    group by task_id, server, split
),

with_prior as (
    select
        *,
        coalesce(sum(attempts) over prior, 0)::bigint as prior_attempts,
        coalesce(sum(passes) over prior, 0)::bigint as prior_passes
    from task_months
    window prior as (partition by task_id order by month rows between unbounded preceding and 1 preceding)
),

jumps as (
    select
        *,
        passes / attempts as success_rate,
        prior_passes / nullif(prior_attempts, 0) as prior_success_rate,
        passes / attempts - prior_passes / nullif(prior_attempts, 0) as jump,
        wilson_low(passes, attempts) as success_rate_ci_low,
        wilson_high(passes, attempts) as success_rate_ci_high,
        wilson_low(prior_passes, prior_attempts) as prior_ci_low,
        wilson_high(prior_passes, prior_attempts) as prior_ci_high
    from with_prior
),

with_month_median as (
    select
        *,
        median(jump) over (partition by month) as month_median_jump
    from jumps
),

final as (
    select
        task_id,
        server,
        month,
        attempts,
        passes,
        success_rate,
        submitters,
        submitters_passed,
        prior_attempts,
        prior_passes,
        prior_success_rate,
        jump,
        month_median_jump,
        success_rate_ci_low,
        success_rate_ci_high,
        prior_ci_low,
        prior_ci_high,
        printf(
            'success rate rose from %.3f (%d/%d in earlier months) to %.3f (%d/%d), passed by %d submitters; '
            || 'the month''s median task rose %.3f; 95%% intervals [%.3f, %.3f] then [%.3f, %.3f]',
            prior_success_rate, prior_passes, prior_attempts, success_rate, passes, attempts,
            submitters_passed, month_median_jump, prior_ci_low, prior_ci_high, success_rate_ci_low,
            success_rate_ci_high
        ) as reason
    from with_month_median, params
    where submitters_passed >= params.min_submitters_passed
        and prior_attempts >= params.min_prior_attempts
        and jump >= params.min_jump
        and jump - month_median_jump >= params.min_excess_jump
        and success_rate_ci_low > prior_ci_high
)

select * from final
