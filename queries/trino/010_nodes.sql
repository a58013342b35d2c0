-- statement: nodes
-- description: The cluster's nodes as the coordinator knows them (system.runtime.nodes), coordinator first, then by
-- description: node id: what the evidence names as the engine that ran the checks.
-- returns: node_id, http_uri, node_version, coordinator ('true' or 'false'), state
SELECT node_id, http_uri, node_version, CAST(coordinator AS varchar) AS coordinator, state
FROM system.runtime.nodes
ORDER BY coordinator DESC, node_id
