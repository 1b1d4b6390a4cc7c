package cmdutil

import "strings"

// Align lays rows out in columns, one line per row: each column as wide
// as its widest cell and at least min[i], one space between columns, the
// last column unpadded. A long profile or model name widens its column
// instead of pushing the rest of its row out of line.
func Align(min []int, rows [][]string) []string {
	var width []int
	for _, r := range rows {
		for i, c := range r {
			if i >= len(width) {
				width = append(width, 0)
				if i < len(min) {
					width[i] = min[i]
				}
			}
			width[i] = max(width[i], len(c))
		}
	}
	out := make([]string, len(rows))
	for n, r := range rows {
		var b strings.Builder
		for i, c := range r {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", width[i]-len(c)))
			}
		}
		out[n] = b.String()
	}
	return out
}
