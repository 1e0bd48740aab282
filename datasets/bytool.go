package datasets

import (
	"cmp"
	"slices"
)

// ToolRow is one tool name of a dataset with its category and where the
// category came from: "table" (the built-in exact names), "heuristic" (the
// name's words), "policy" (the policy's [categories]) or "record" (the
// dataset's own tool.category, when it differs from what apeval would say).
type ToolRow struct {
	Tool     string `json:"tool"`
	Cases    int    `json:"cases"`
	Category string `json:"category"`
	Source   string `json:"source"`
}

// ByTool counts cases per tool name and category (`apeval datasets stats
// --by-tool`), so a wrong category is seen and corrected in one look.
type ByTool struct {
	cats CategoryMap
	rows map[[2]string]*ToolRow
}

// NewByTool counts with cats as the policy's map (nil: built-in only).
func NewByTool(cats CategoryMap) *ByTool {
	return &ByTool{cats: cats, rows: map[[2]string]*ToolRow{}}
}

// Add counts one case.
func (b *ByTool) Add(c *Case) {
	key := [2]string{c.Tool.Name, c.Tool.Category}
	r := b.rows[key]
	if r == nil {
		cat, src := b.cats.Explain(c.Tool.Name)
		if cat != c.Tool.Category {
			src = "record"
		}
		r = &ToolRow{Tool: c.Tool.Name, Category: c.Tool.Category, Source: src}
		b.rows[key] = r
	}
	r.Cases++
}

// Rows returns the tools, most cases first, then by name.
func (b *ByTool) Rows() []ToolRow {
	out := make([]ToolRow, 0, len(b.rows))
	for _, r := range b.rows {
		out = append(out, *r)
	}
	slices.SortFunc(out, func(x, y ToolRow) int {
		return cmp.Or(cmp.Compare(y.Cases, x.Cases), cmp.Compare(x.Tool, y.Tool), cmp.Compare(x.Category, y.Category))
	})
	return out
}
