-- metrics_by_submission_server: the design's metrics for each submission on each server (metrics_rollup's
-- grain 'submission_server'). Counts are kept beside the rates so coarser views can re-aggregate them exactly.
-- depends: metrics_rollup
-- grain: submission_id, server
select * exclude (grain, servers, submissions)
from metrics_rollup
where grain = 'submission_server'
