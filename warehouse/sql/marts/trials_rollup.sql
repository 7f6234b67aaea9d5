-- trials_rollup: pass@1, pass^k and pass@k with their 95% Wilson intervals, and model tokens and cost,
-- at every grain a trials mart shows, in one pass over trials_by_task: per submission and server, per
-- submission, and pooled over every submission of a split with the same number of trials k, per server
-- and over all servers (server = 'all'), named by `grain`. pass@1 = passed / attempted runs over all
-- trials (the success rate, run-weighted when pooled); pass^k and pass@k are over complete tasks
-- (trials_by_task), task-weighted. Read it through trials_by_submission_server, trials_by_submission
-- and trials_aggregate.
-- Stored as a table at build time, like run_facts: a view reading one submission's row does not
-- recompute every grain.
-- materialized: table
-- depends: trials_by_task
-- grain: grain, submission_id, submitter, agent, split, split_kind, k, server
-- check: tasks_all_passed <= tasks_any_passed and tasks_any_passed <= tasks_complete and tasks_complete <= tasks
-- check: passed <= attempted and attempted <= runs
-- check: pass_at_1 between pass_at_1_ci_low - 1e-9 and pass_at_1_ci_high + 1e-9
-- check: pass_hat_k between pass_hat_k_ci_low - 1e-9 and pass_hat_k_ci_high + 1e-9 and pass_hat_k <= pass_at_k
-- check: pass_at_k between pass_at_k_ci_low - 1e-9 and pass_at_k_ci_high + 1e-9
with tasks as (
    select * from trials_by_task
),

counts as (
    select
        rollup_grain(grouping(submission_id), grouping(server)) as grain,
        submission_id,
        submitter,
        agent,
        split,
        split_kind,
        rollup_server(grouping(submission_id), grouping(server), server) as server,
        k,
        count(distinct submission_id) as submissions,
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
    group by grouping sets (
        (submission_id, submitter, agent, split, split_kind, k, server),
        (submission_id, submitter, agent, split, split_kind, k),
        (split, split_kind, k, server),
        (split, split_kind, k)
    )
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
