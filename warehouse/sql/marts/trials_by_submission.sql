-- trials_by_submission: pass@1, pass^k and pass@k with their 95% Wilson intervals, and model
-- tokens and cost, for each submission over all its servers (the score card). pass@1 = passed / attempted
-- runs over all trials (the success rate); pass^k and pass@k are over complete tasks (trials_by_task).
with tasks as (
    select * from trials_by_task
),

counts as (
    select
        submission_id,
        submitter,
        agent,
        split,
        split_kind,
        max(k) as k,
        count(*) as tasks,
        count(*) filter (where complete) as tasks_complete,
        count(*) filter (where all_passed) as tasks_all_passed,
        count(*) filter (where any_passed) as tasks_any_passed,
        sum(runs)::bigint as runs,
        sum(attempted)::bigint as attempted,
        sum(passed)::bigint as passed,
        sum(model_requests)::bigint as model_requests,
        sum(prompt_tokens)::bigint as prompt_tokens,
        sum(completion_tokens)::bigint as completion_tokens,
        sum(cost_nanousd)::bigint as cost_nanousd
    from tasks
    group by submission_id, submitter, agent, split, split_kind
),

final as (
    select
        *,
        success_rate(passed, attempted) as pass_at_1,
        wilson_low(passed, attempted) as pass_at_1_ci_low,
        wilson_high(passed, attempted) as pass_at_1_ci_high,
        success_rate(tasks_all_passed, tasks_complete) as pass_hat_k,
        wilson_low(tasks_all_passed, tasks_complete) as pass_hat_k_ci_low,
        wilson_high(tasks_all_passed, tasks_complete) as pass_hat_k_ci_high,
        success_rate(tasks_any_passed, tasks_complete) as pass_at_k,
        wilson_low(tasks_any_passed, tasks_complete) as pass_at_k_ci_low,
        wilson_high(tasks_any_passed, tasks_complete) as pass_at_k_ci_high,
        (prompt_tokens + completion_tokens) / nullif(runs, 0) as tokens_per_run,
        cost_usd(cost_nanousd) as cost_usd,
        cost_nanousd / nullif(runs * 1000000000, 0) as cost_usd_per_run
    from counts
)

select * from final
