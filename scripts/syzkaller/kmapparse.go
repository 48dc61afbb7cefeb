// kmapparse runs syzkaller's pkg/report (Linux console-log parser) over console
// logs and, for each "WARNING: kmap_stack:" report in a log, checks which lines
// of the report's description survive in the parsed report body (rep.Report).
// Everything printed comes from the parser; nothing is typed by hand.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/google/syzkaller/pkg/mgrconfig"
	"github.com/google/syzkaller/pkg/report"
	"github.com/google/syzkaller/sys/targets"
)

var (
	flagArch      = flag.String("arch", targets.AMD64, "syzkaller target arch (amd64, 386, arm64)")
	flagStripStep = flag.Bool("strip-step", false, `remove the "step-NAME| " prefix the module test's guest script adds to dmesg lines`)
	flagBody      = flag.Bool("body", false, "also print each kmap_stack report body")
)

var (
	stepRe   = regexp.MustCompile(`(?m)^step-[A-Za-z0-9_]+\| `)
	prefixRe = regexp.MustCompile(`^(?:step-[A-Za-z0-9_]+\| )?(?:<[0-9]+>)?\[ *[0-9]+\.[0-9]+\](?:\[ *[CT][0-9]+\])? ?`)
	// Lines that end the kmap_stack description (dump_stack header or a new report).
	endRe   = regexp.MustCompile(`^(CPU: [0-9]+ |Hardware name:|Call Trace:|Tainted: |-+\[ cut here \]|=+$|WARNING:|BUG:|Modules linked in:|Kernel panic)`)
	traceRe = regexp.MustCompile(`^\s+(\? )?([A-Za-z0-9_.]+\+0x[0-9a-f]+/0x[0-9a-f]+|0x[0-9a-f]+)( \[[A-Za-z0-9_]+\])?\s*$`)
	entryRe = regexp.MustCompile(`^\s+#[0-9]+: `)
)

type line struct {
	pos    int    // byte offset in the parsed log
	msg    string // message with console prefix removed
	kernel bool   // the line had a kernel console prefix ("[ ts] ")
}

func splitLines(log []byte) []line {
	var res []line
	pos := 0
	for _, l := range bytes.SplitAfter(log, []byte("\n")) {
		s := strings.TrimRight(string(l), "\r\n")
		m := prefixRe.FindString(s)
		res = append(res, line{pos, strings.TrimRight(s[len(m):], " "), m != ""})
		pos += len(l)
	}
	return res
}

func category(i int, idx int, msg string) string {
	switch {
	case i == idx:
		return "warning"
	case i == idx+1:
		return "second"
	case strings.Contains(msg, "was mapped in"):
		return "mapped_in"
	case strings.Contains(msg, "the top of the stack was mapped at"):
		return "top"
	case strings.Contains(msg, "stack of ") && strings.Contains(msg, "innermost first"):
		return "stack_of"
	case entryRe.MatchString(msg):
		return "entries"
	case traceRe.MatchString(msg):
		return "trace"
	default:
		return "other"
	}
}

var order = []string{"warning", "second", "mapped_in", "top", "stack_of", "entries", "trace", "other"}

func main() {
	flag.Parse()
	for _, file := range flag.Args() {
		if err := run(file); err != nil {
			fmt.Fprintf(os.Stderr, "%v: %v\n", file, err)
			os.Exit(1)
		}
	}
}

func run(file string) error {
	log, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if *flagStripStep {
		log = stepRe.ReplaceAll(log, nil)
	}
	cfg := &mgrconfig.Config{
		Derived: mgrconfig.Derived{
			TargetOS:   targets.Linux,
			TargetArch: *flagArch,
			SysTarget:  targets.Get(targets.Linux, *flagArch),
		},
	}
	reporter, err := report.NewReporter(cfg)
	if err != nil {
		return err
	}
	reps := report.ParseAll(reporter, log)
	fmt.Printf("=== %s (arch=%s strip-step=%v): %d report(s), ContainsCrash=%v\n",
		file, *flagArch, *flagStripStep, len(reps), reporter.ContainsCrash(log))
	for i, rep := range reps {
		fmt.Printf("  rep[%d] title=%q type=%v suppressed=%v corrupted=%v reason=%q start=%d end=%d\n",
			i, rep.Title, rep.Type, rep.Suppressed, rep.Corrupted, rep.CorruptedReason, rep.StartPos, rep.EndPos)
	}
	lines := splitLines(log)
	for idx, l := range lines {
		if !strings.HasPrefix(l.msg, "WARNING: kmap_stack:") {
			continue
		}
		kind := strings.TrimPrefix(l.msg, "WARNING: kmap_stack: ")
		if p := strings.LastIndex(kind, " in "); p >= 0 {
			kind = kind[:p]
		}
		var rep *report.Report
		ri := -1
		// The report that starts closest before this WARNING line and still covers it.
		for i, r := range reps {
			if r.StartPos <= l.pos && l.pos < r.EndPos && (rep == nil || r.StartPos > rep.StartPos) {
				rep, ri = r, i
			}
		}
		fmt.Printf("  kmap_stack @line %d kind=%q\n", idx+1, kind)
		if rep == nil {
			fmt.Printf("    NOT inside any parsed report\n")
			continue
		}
		fmt.Printf("    -> rep[%d] starts here=%v title=%q corrupted=%v reason=%q\n",
			ri, rep.StartPos == l.pos, rep.Title, rep.Corrupted, rep.CorruptedReason)
		fmt.Printf("    body: %d lines, %d \"WARNING: kmap_stack:\" line(s), %d \"Call Trace:\" line(s)\n",
			bytes.Count(rep.Report, []byte("\n")), bytes.Count(rep.Report, []byte("WARNING: kmap_stack:")),
			bytes.Count(rep.Report, []byte("Call Trace:")))
		total := map[string]int{}
		kept := map[string]int{}
		var missing []string
		for i := idx; i < len(lines); i++ {
			msg := lines[i].msg
			if i > idx && (endRe.MatchString(msg) || msg == "" || lines[i].kernel != lines[idx].kernel) {
				break
			}
			c := category(i, idx, msg)
			total[c]++
			if bytes.Contains(rep.Report, []byte(msg)) ||
				bytes.Contains(rep.Report, []byte(strings.TrimSpace(msg))) {
				kept[c]++
			} else {
				missing = append(missing, fmt.Sprintf("%s: %q", c, msg))
			}
		}
		var sb strings.Builder
		for _, c := range order {
			if total[c] == 0 {
				continue
			}
			if c == "second" {
				fmt.Printf("    second line: %q\n", lines[idx+1].msg)
			}
			fmt.Fprintf(&sb, " %s=%d/%d", c, kept[c], total[c])
		}
		fmt.Printf("    kept in body:%s\n", sb.String())
		for _, m := range missing {
			fmt.Printf("    missing %s\n", m)
		}
		if *flagBody {
			fmt.Printf("    ---- body ----\n%s    ---- end ----\n", rep.Report)
		}
	}
	return nil
}
