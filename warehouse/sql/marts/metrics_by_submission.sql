-- metrics_by_submission: the design's metrics for each submission over all its servers (the score card;
-- metrics_rollup's grain 'submission'), with how many servers it ran on, when its first run started
-- (submitted_at) and when its last one ended.
-- depends: metrics_rollup
-- grain: submission_id
-- check: servers >= 1 and submitted_at <= last_ended_at
select * exclude (grain, server, submissions) rename (first_started_at as submitted_at)
from metrics_rollup
where grain = 'submission'
