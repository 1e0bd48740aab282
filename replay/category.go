package replay

import "github.com/apeval/apeval/datasets"

// builtinCategory is the built-in tool-name → category map the reader uses
// for cases without a category; the policy's [categories] table overrides it.
func builtinCategory(name string) string { return datasets.CategoryOf(name) }
