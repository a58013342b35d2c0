package sources

import (
	"fmt"
	"strings"
)

// ZoneNotes flags every column that is a zone-less TIMESTAMP in one input
// and a TIMESTAMP WITH TIME ZONE in the other: DuckDB compares them by
// reading the zone-less value as UTC (the session zone), which is right
// only if whoever wrote it meant UTC. The notes go into the report so a
// reviewer sees the assumption. Inputs may be nil.
func ZoneNotes(source, sink *Input) []string {
	if source == nil || sink == nil {
		return nil
	}
	sinkTypes := map[string]string{}
	for _, c := range sink.Columns {
		sinkTypes[c.Name] = strings.ToUpper(c.Type)
	}
	var notes []string
	for _, c := range source.Columns {
		st, kt := strings.ToUpper(c.Type), sinkTypes[c.Name]
		switch {
		case st == "TIMESTAMP" && kt == "TIMESTAMP WITH TIME ZONE":
			notes = append(notes, fmt.Sprintf("column %s is a zone-less TIMESTAMP in the source and TIMESTAMP WITH TIME ZONE in the sink: the source's values are read as UTC where they are compared", c.Name))
		case st == "TIMESTAMP WITH TIME ZONE" && kt == "TIMESTAMP":
			notes = append(notes, fmt.Sprintf("column %s is TIMESTAMP WITH TIME ZONE in the source and a zone-less TIMESTAMP in the sink: the sink's values are read as UTC where they are compared", c.Name))
		}
	}
	return notes
}
