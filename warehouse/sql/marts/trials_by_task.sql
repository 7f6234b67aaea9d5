-- trials_by_task: each submission's trials of each task (`mcpbench run --trials K`) and the model
-- usage of those runs. A submission's K is its highest trial number. A task is complete when all K of
-- its trials were attempted (none an infra error); only complete tasks enter pass^k and pass@k:
-- all_passed (pass^k, tau-bench's definition: every trial passed) and any_passed (pass@k).
-- depends: run_facts
-- grain: submission_id, task_id
-- check: passed <= attempted and attempted <= runs and attempted <= k
-- check: complete or not any_passed
-- check: any_passed or not all_passed
with facts as (
    select * from run_facts
),

trials as (
    select submission_id, max(trial) as k
    from facts
    group by submission_id
),

per_task as (
    select
        submission_id,
        submitter,
        agent,
        split,
        split_kind,
        server,
        task_id,
        count(*) as runs,
        count(*) filter (where attempted) as attempted,
        count(*) filter (where passed) as passed,
        coalesce(sum(model_requests), 0)::bigint as model_requests,
        coalesce(sum(model_prompt_tokens), 0)::bigint as prompt_tokens,
        coalesce(sum(model_completion_tokens), 0)::bigint as completion_tokens,
        coalesce(sum(model_cost_nanousd), 0)::bigint as cost_nanousd
    from facts
    group by submission_id, submitter, agent, split, split_kind, server, task_id
),

final as (
    select
        per_task.*,
        trials.k,
        per_task.attempted = trials.k as complete,
        per_task.attempted = trials.k and per_task.passed = trials.k as all_passed,
        per_task.attempted = trials.k and per_task.passed > 0 as any_passed,
        cost_usd(per_task.cost_nanousd) as cost_usd
    from per_task
    join trials on trials.submission_id = per_task.submission_id
)

select * from final
