package main

// The judge backends in their own packages, registered by import (the
// built-in ones register in package judge): one line per backend
// (docs/internals.md, "Adding a judge backend").
import (
	_ "github.com/apeval/apeval/judge/anthropic"
)
