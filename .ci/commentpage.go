//go:build ignore

// Command commentpage renders a pull-request comment's Markdown to an HTML
// page the way GitHub does (GitHub Flavored Markdown through goldmark: tables,
// strikethrough, autolinks, raw <details> and HTML comments kept) with
// GitHub's table and code styles, for comment-check.cjs to open in Chromium.
//
//	go run .ci/commentpage.go comment.md comment.html
package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
)

// style is the part of GitHub's markdown-body CSS that decides widths.
const style = `body{margin:0;padding:16px;font:14px/1.5 -apple-system,"Segoe UI","Noto Sans",Helvetica,Arial,sans-serif;color:#1f2328}
.markdown-body{max-width:100%;overflow-wrap:break-word}
table{border-spacing:0;border-collapse:collapse;display:block;width:max-content;max-width:100%;overflow:auto}
td,th{padding:6px 13px;border:1px solid #d1d9e0}
code{font:85% ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#eff1f3;padding:.2em .4em;border-radius:6px;white-space:break-spaces}
pre{overflow:auto;padding:16px;background:#f6f8fa}
pre code{white-space:pre;padding:0}
blockquote{margin:0;padding:0 1em;border-left:.25em solid #d1d9e0}`

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: go run .ci/commentpage.go comment.md comment.html")
		os.Exit(2)
	}
	src, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	md := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe()))
	var body bytes.Buffer
	if err := md.Convert(src, &body); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	page := fmt.Sprintf("<!doctype html><meta charset=utf-8><title>comment</title><style>%s</style><article class=markdown-body>%s</article>\n", style, body.String())
	if err := os.WriteFile(os.Args[2], []byte(page), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
