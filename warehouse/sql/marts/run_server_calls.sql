-- run_server_calls: one row per run and server its calls went to, counted from the run's call rows
-- (CallRecord.server: a cross-server run's calls each where it went). The one pass over the calls:
-- stored as a table at build time; run_facts sums it per run, and metrics_by_submission_server counts
-- each call in the row of the server it went to.
-- materialized: table
-- depends: stg_calls
-- grain: run_id, server
-- check: unlisted_calls <= calls and error_calls <= calls
with calls as (
    select * from stg_calls
),

final as (
    select
        run_id,
        server,
        count(*) as calls,
        count(*) filter (where not listed) as unlisted_calls,
        count(*) filter (where is_error) as error_calls
    from calls
    group by run_id, server
)

select * from final
