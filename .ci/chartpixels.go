//go:build ignore

// Command chartpixels checks from a screenshot that the charts of
// report.html drew: inside each chart's box (page pixels, written by
// html-check.cjs) enough pixels must differ from the box's background, and
// some must be coloured (the data series; axes and text alone are grey).
// There must be at least minCharts charts. Used by html-check.sh:
//
//	go run .ci/chartpixels.go report.png charts.json
package main

import (
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
)

const (
	minCharts = 3
	// inkMin is the share of a box's pixels that must differ from its
	// background: axes, ticks and labels alone are a few percent; an empty
	// or unrendered box is 0.
	inkMin = 0.01
	// colourMin is the share that must be coloured (data series).
	colourMin = 0.001
	// Channel distance from the background that counts as ink, and the
	// channel spread (max−min) that counts as colour.
	inkDelta    = 48
	colourDelta = 60
)

type box struct {
	Tag    string  `json:"tag"`
	Title  string  `json:"title"`
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: go run chartpixels.go SCREENSHOT.png CHARTS.json")
		os.Exit(2)
	}
	ok, err := check(os.Args[1], os.Args[2])
	if err != nil {
		fmt.Println("html-check:", err)
		os.Exit(1)
	}
	if !ok {
		os.Exit(1)
	}
}

func check(pngPath, boxesPath string) (bool, error) {
	f, err := os.Open(pngPath)
	if err != nil {
		return false, err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return false, fmt.Errorf("%s: %w", pngPath, err)
	}
	data, err := os.ReadFile(boxesPath)
	if err != nil {
		return false, err
	}
	var boxes []box
	if err := json.Unmarshal(data, &boxes); err != nil {
		return false, fmt.Errorf("%s: %w", boxesPath, err)
	}
	ok := true
	if len(boxes) < minCharts {
		fmt.Printf("html-check: %d chart(s) on the page, want at least %d\n", len(boxes), minCharts)
		ok = false
	}
	for i, b := range boxes {
		r := image.Rect(int(math.Floor(b.X)), int(math.Floor(b.Y)), int(math.Ceil(b.X+b.Width)), int(math.Ceil(b.Y+b.Height))).Intersect(img.Bounds())
		ink, colour, bg := count(img, r)
		total := float64(r.Dx() * r.Dy())
		verdict := "ok"
		switch {
		case total == 0:
			verdict, ok = "FAIL: outside the screenshot", false
		case ink/total < inkMin:
			verdict, ok = fmt.Sprintf("FAIL: under %.1f %% ink", 100*inkMin), false
		case colour/total < colourMin:
			verdict, ok = fmt.Sprintf("FAIL: under %.1f %% coloured", 100*colourMin), false
		}
		if total == 0 {
			total = 1
		}
		fmt.Printf("html-check: chart %d <%s> %q: %dx%d px, background #%02x%02x%02x, ink %.1f %%, coloured %.2f %%: %s\n",
			i+1, b.Tag, b.Title, r.Dx(), r.Dy(), bg[0], bg[1], bg[2], 100*ink/total, 100*colour/total, verdict)
	}
	return ok, nil
}

// count returns how many pixels of r differ from its background (the most
// frequent colour) and how many are coloured, and the background.
func count(img image.Image, r image.Rectangle) (ink, colour float64, bg [3]uint8) {
	hist := map[[3]uint8]int{}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			hist[rgb(img, x, y)]++
		}
	}
	best := -1
	for c, n := range hist {
		if n > best || (n == best && less(c, bg)) {
			bg, best = c, n
		}
	}
	for c, n := range hist {
		d := max(absDiff(c[0], bg[0]), absDiff(c[1], bg[1]), absDiff(c[2], bg[2]))
		if d > inkDelta {
			ink += float64(n)
		}
		if int(max(c[0], c[1], c[2]))-int(min(c[0], c[1], c[2])) > colourDelta {
			colour += float64(n)
		}
	}
	return ink, colour, bg
}

func rgb(img image.Image, x, y int) [3]uint8 {
	r, g, b, _ := img.At(x, y).RGBA()
	return [3]uint8{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8)}
}

func less(a, b [3]uint8) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}
