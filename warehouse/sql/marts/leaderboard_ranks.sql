-- leaderboard_ranks: where every private or historical submission stands within its month, the one
-- ranking both leaderboards show. Submissions that covered their month (submission_coverage) are
-- ranked by success rate (desc), then efficiency (asc: fewer steps), then hallucination rate (asc),
-- a submission that made no call counting as 0 (it invented no tool: it never ranks below one that
-- invented some at the same success rate); the others get rank null. Each success rate carries its 95% Wilson interval; separable_from_next
-- is false when this entry's interval overlaps the next ranked one's (not separable at this sample
-- size; null on the last, and on entries that are not ranked). Results of different versions of one task
-- are never ranked together: task_versions names the versions a submission's runs judged (a digest of
-- its task ids and versions), and only entries with the same task_versions share a ranking.
-- depends: metrics_by_submission, submission_coverage, run_facts
-- grain: submission_id
-- check: rank >= 1 and success_rate_ci_low <= success_rate_ci_high
-- check: separable_from_next is null or rank is not null
with submissions as (
    select * from metrics_by_submission
    where split_kind in ('private', 'historical')
),

coverage as (
    select * from submission_coverage
),

facts as (
    select * from run_facts
),

versions as (
    select
        submission_id,
        left(md5(string_agg(distinct task_id || '@' || task_version::varchar, ',' order by task_id || '@' || task_version::varchar)), 12)
            as task_versions
    from facts
    group by submission_id
),

final as (
    select
        submissions.submission_id,
        versions.task_versions,
        case when coverage.covered then rank() over board_ranks end as rank,
        wilson_low(submissions.passed, submissions.attempted) as success_rate_ci_low,
        wilson_high(submissions.passed, submissions.attempted) as success_rate_ci_high,
        case when coverage.covered then
            wilson_low(submissions.passed, submissions.attempted)
                > lead(wilson_high(submissions.passed, submissions.attempted)) over board
            or wilson_high(submissions.passed, submissions.attempted)
                < lead(wilson_low(submissions.passed, submissions.attempted)) over board
        end as separable_from_next
    from submissions
    join coverage on coverage.submission_id = submissions.submission_id
    join versions on versions.submission_id = submissions.submission_id
    window board_ranks as (
        partition by submissions.split, versions.task_versions, coverage.covered
        order by submissions.success_rate desc nulls last, submissions.efficiency asc nulls last,
            coalesce(submissions.hallucination_rate, 0) asc
    ),
    board as (
        partition by submissions.split, versions.task_versions, coverage.covered
        order by submissions.success_rate desc nulls last, submissions.efficiency asc nulls last,
            coalesce(submissions.hallucination_rate, 0) asc, submissions.submission_id
    )
)

select * from final
