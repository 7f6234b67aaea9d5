-- metrics_by_submission_server: the design's metrics for each submission on each server (metrics_rollup's
-- grain 'submission_server'): a run's counts in the row of its server (a cross-server task's runs in
-- the row 'cross-server'), each call's in the row of the server it went to. Counts are kept beside the
-- rates so coarser views can re-aggregate them exactly.
-- depends: metrics_rollup
-- grain: submission_id, server
select * exclude (grain, servers, submissions)
from metrics_rollup
where grain = 'submission_server'
