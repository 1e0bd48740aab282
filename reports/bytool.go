package reports

import (
	"encoding/json"
	"io"
	"strconv"

	"github.com/apeval/apeval/datasets"
)

// RenderByTool prints `datasets stats --by-tool`: every tool name with its
// cases, category and the category's source.
func RenderByTool(w io.Writer, rows []datasets.ToolRow, f Format) error {
	if f == FormatJSON {
		if rows == nil {
			rows = []datasets.ToolRow{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"tools": rows})
	}
	g := &grid{header: []string{"tool", "cases", "category", "source"}, right: []bool{false, true, false, false}}
	for _, r := range rows {
		g.add(r.Tool, strconv.Itoa(r.Cases), r.Category, r.Source)
	}
	return g.render(w, f)
}
