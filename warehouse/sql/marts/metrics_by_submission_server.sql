-- metrics_by_submission_server: the design's metrics for each submission on each server. Run-level
-- counts (runs, passes, budget used, frame violations, recovery) are in the row of the run's server,
-- and a cross-server task's runs in a row of their own, server 'cross-server'; call-level counts
-- (calls, unlisted calls: the hallucination rate) are in the row of the server each call went to
-- (run_server_calls), so a cross-server run's calls count where they went, and a server reached only by
-- cross-server runs has a row with calls and no runs. A call that named no server of its task (an
-- unlisted name at a cross-server run's address) counts in the 'cross-server' row.
-- Counts are kept beside the rates so coarser views can re-aggregate them exactly: every run and every
-- call is counted in exactly one row.
with facts as (
    select * from run_facts
),

server_calls as (
    select * from run_server_calls
),

run_counts as (
    select
        submission_id,
        submitter,
        agent,
        split,
        split_kind,
        server,
        count(*) as runs,
        count(*) filter (where attempted) as attempted,
        count(*) filter (where passed) as passed,
        count(*) filter (where not attempted) as infra_errors,
        coalesce(sum(steps_used_e12) filter (where passed), 0)::hugeint as passed_steps_e12_sum,
        count(*) filter (where frame_violated) as frame_violated,
        count(*) filter (where attempted and is_recovery) as recovery_attempted,
        count(*) filter (where passed and is_recovery and observed_error) as recovery_passed_after_error,
        count(*) filter (where passed and is_recovery and not observed_error) as recovery_passed_without_error,
        min(started_at) as first_started_at,
        max(ended_at) as last_ended_at
    from facts
    group by submission_id, submitter, agent, split, split_kind, server
),

call_counts as (
    select
        facts.submission_id,
        facts.submitter,
        facts.agent,
        facts.split,
        facts.split_kind,
        server_calls.server,
        coalesce(sum(server_calls.calls) filter (where facts.attempted), 0)::bigint as calls,
        coalesce(sum(server_calls.unlisted_calls) filter (where facts.attempted), 0)::bigint as unlisted_calls
    from server_calls
    join facts on facts.run_id = server_calls.run_id
    group by facts.submission_id, facts.submitter, facts.agent, facts.split, facts.split_kind, server_calls.server
),

counts as (
    select
        coalesce(run_counts.submission_id, call_counts.submission_id) as submission_id,
        coalesce(run_counts.submitter, call_counts.submitter) as submitter,
        coalesce(run_counts.agent, call_counts.agent) as agent,
        coalesce(run_counts.split, call_counts.split) as split,
        coalesce(run_counts.split_kind, call_counts.split_kind) as split_kind,
        coalesce(run_counts.server, call_counts.server) as server,
        coalesce(run_counts.runs, 0) as runs,
        coalesce(run_counts.attempted, 0) as attempted,
        coalesce(run_counts.passed, 0) as passed,
        coalesce(run_counts.infra_errors, 0) as infra_errors,
        coalesce(run_counts.passed_steps_e12_sum, 0)::hugeint as passed_steps_e12_sum,
        coalesce(run_counts.frame_violated, 0) as frame_violated,
        coalesce(call_counts.calls, 0)::bigint as calls,
        coalesce(call_counts.unlisted_calls, 0)::bigint as unlisted_calls,
        coalesce(run_counts.recovery_attempted, 0) as recovery_attempted,
        coalesce(run_counts.recovery_passed_after_error, 0) as recovery_passed_after_error,
        coalesce(run_counts.recovery_passed_without_error, 0) as recovery_passed_without_error,
        run_counts.first_started_at,
        run_counts.last_ended_at
    from run_counts
    full outer join call_counts
        on call_counts.submission_id = run_counts.submission_id and call_counts.server = run_counts.server
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
