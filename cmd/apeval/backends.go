package main

// The judge backends register themselves when imported; judge/all imports
// every one (docs/internals.md, "Adding a judge backend").
import (
	_ "github.com/apeval/apeval/judge/all"
)
