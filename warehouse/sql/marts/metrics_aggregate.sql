-- metrics_aggregate: the metrics pooled over every submission of a split, per server and over all
-- servers (server = 'all'; metrics_rollup's grains 'split_server' and 'split'). Pooled means
-- run-weighted: every run counts once, whoever submitted it.
-- depends: metrics_rollup
-- grain: split, server
-- check: submissions >= 1
select * exclude (grain, submission_id, submitter, agent, servers, first_started_at, last_ended_at)
from metrics_rollup
where grain in ('split_server', 'split')
