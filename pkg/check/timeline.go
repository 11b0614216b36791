package check

import (
	"context"
	"fmt"
	"regexp"

	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
)

// TimelineShows holds when a line of the cell's timeline name (env.Timeline)
// about obj matches re; what it saw is that line, or how many lines it read.
// A timeline the cell never started could not tell.
func TimelineShows(name string, obj lifecycle.Object, re string) assert.Check {
	pattern := regexp.MustCompile(`^\S+ \S+ +` + regexp.QuoteMeta(lifecycle.Ref(obj.Kind, obj.Namespace, obj.Name)) + ` .*` + re)
	return describe(obj, fmt.Sprintf("in timeline %s matches %q", name, re), func(ctx context.Context) (bool, string, error) {
		lines, ok := lifecycle.CellFrom(ctx).TimelineLines(name)
		if !ok {
			return false, "", assert.Unknown(fmt.Errorf("no timeline %q in this cell", name))
		}
		for _, l := range lines {
			if pattern.MatchString(l) {
				return true, l, nil
			}
		}
		return false, fmt.Sprintf("no line of %d matches %q", len(lines), re), nil
	})
}
