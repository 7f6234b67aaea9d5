-- metrics_rollup: the design's metrics at every grain a metrics mart shows, in one pass over run_facts:
-- per submission and server, per submission, per split and server, and per split (server = 'all'),
-- named by `grain`. Counts are summed as integers and every rate divided once from them
-- (macros/metrics.sql), so each grain is exact; macros/rollup.sql names the grains. Read it through the views that pick one grain each
-- (metrics_by_submission_server, metrics_by_submission, metrics_aggregate); a new count or rate is
-- added here once and appears in all three.
-- Run-level counts (runs, passes, budget used, frame violations, recovery) are in the row of the run's
-- server, and a cross-server task's runs in a row of their own, server 'cross-server'; call-level
-- counts (calls, unlisted calls: the hallucination rate) are in the row of the server each call went
-- to (run_server_calls), so a server reached only by cross-server runs has a row with calls and no
-- runs, and a call that named no server of its task counts in the 'cross-server' row. Every run and
-- every call is counted in exactly one row of each grain.
-- Stored as a table at build time, like run_facts: a view reading one submission's row does not
-- recompute every grain.
-- materialized: table
-- depends: run_facts, run_server_calls
-- grain: grain, submission_id, submitter, agent, split, split_kind, server
-- check: runs = attempted + infra_errors
-- check: passed <= attempted and frame_violated <= attempted and unlisted_calls <= calls
-- check: recovery_passed_after_error + recovery_passed_without_error <= recovery_attempted
-- check: success_rate between 0 and 1 and hallucination_rate between 0 and 1
-- check: recovery_rate between 0 and 1 and collateral_damage_rate between 0 and 1
-- check: efficiency between 0 and 100
with facts as (
    select * from run_facts
),

server_calls as (
    select * from run_server_calls
),

-- one row per run at its server (is_run), and one per attempted run and server its calls went to
units as (
    select
        submission_id, submitter, agent, split, split_kind, server, servers as task_servers, true as is_run,
        attempted, passed,
        steps_used_e12, frame_violated, is_recovery, observed_error, started_at, ended_at,
        0::bigint as calls, 0::bigint as unlisted_calls
    from facts
    union all
    select
        facts.submission_id, facts.submitter, facts.agent, facts.split, facts.split_kind, server_calls.server,
        null, false, null, null, null, null, null, null, null, null,
        server_calls.calls, server_calls.unlisted_calls
    from server_calls
    join facts on facts.run_id = server_calls.run_id
    where facts.attempted
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
        -- the servers its tasks ran on (a cross-server task's each)
        len(list_distinct(flatten(array_agg(task_servers) filter (where is_run)))) as servers,
        count(distinct submission_id) as submissions,
        count(*) filter (where is_run) as runs,
        count(*) filter (where attempted) as attempted,
        count(*) filter (where passed) as passed,
        count(*) filter (where is_run and not attempted) as infra_errors,
        coalesce(sum(steps_used_e12) filter (where passed), 0)::hugeint as passed_steps_e12_sum,
        count(*) filter (where frame_violated) as frame_violated,
        coalesce(sum(calls), 0)::bigint as calls,
        coalesce(sum(unlisted_calls), 0)::bigint as unlisted_calls,
        count(*) filter (where attempted and is_recovery) as recovery_attempted,
        count(*) filter (where passed and is_recovery and observed_error) as recovery_passed_after_error,
        count(*) filter (where passed and is_recovery and not observed_error) as recovery_passed_without_error,
        min(started_at) as first_started_at,
        max(ended_at) as last_ended_at
    from units
    group by grouping sets (
        (submission_id, submitter, agent, split, split_kind, server),
        (submission_id, submitter, agent, split, split_kind),
        (split, split_kind, server),
        (split, split_kind)
    )
),

final as (
    select
        *,
        success_rate(passed, attempted) as success_rate,
        efficiency(passed_steps_e12_sum, passed) as efficiency,
        collateral_damage_rate(frame_violated, attempted) as collateral_damage_rate,
        hallucination_rate(unlisted_calls, calls) as hallucination_rate,
        recovery_rate(recovery_passed_after_error, recovery_attempted, recovery_passed_without_error)
            as recovery_rate
    from counts
)

select * from final
