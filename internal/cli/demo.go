package cli

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/fixtures/demo"
)

func newDemoCmd(e *env) *cobra.Command {
	var out outputFlags
	var lim limitFlags
	var serve bool
	var addr string
	var defectNames []string
	var rf recordFlags
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Start the embedded sample API on 127.0.0.1 and scan it",
		Long: `demo starts the embedded sample API on a free 127.0.0.1 port and scans it,
with the output and gate flags of scan. --serve only serves it and prints its
URL, for scan, curl or a browser; --defect breaks it on purpose, to show what
findings look like.`,
		Example: `  agentready demo
  agentready demo --defect no-vary-accept --format markdown
  agentready demo --serve`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var defects []demo.Defect
			for _, name := range defectNames {
				d, err := demo.ParseDefect(name)
				if err != nil {
					return usageError("--defect: %v", err)
				}
				defects = append(defects, d)
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return usageError("listen on %s: %v", addr, err)
			}
			handler, reset := demo.NewResettable(defects...)
			srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
			go srv.Serve(ln)
			defer srv.Close()
			target := &url.URL{Scheme: "http", Host: ln.Addr().String(), Path: "/"}
			if serve {
				fmt.Fprintf(e.stdout, "Serving the demo API at %s (Ctrl-C to stop)\n", target)
				<-cmd.Context().Done()
				return nil
			}
			if out.verbose {
				fmt.Fprintf(e.stderr, "demo API at %s\n", target)
			}
			lim.ids.fallback = demoIdentities() // scan as anonymous and user unless told otherwise
			// A trial restarts the demo between runs, in process.
			lim.trial.restart = func(context.Context) error { reset(); return nil }
			lim.spec.keepRaw = rf.record != "" || checks.NeedsOf(e.customChecks()).Has(checks.NeedsSpecText)
			plan, err := planScan(e, target, &out, &lim)
			if err != nil {
				return err
			}
			if err := plan.recordTo(rf.record); err != nil {
				return err
			}
			return plan.run(cmd.Context(), e)
		},
	}
	cmd.Flags().BoolVar(&serve, "serve", false, "only serve the demo API and print its URL")
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:0", "address to serve the demo API on")
	cmd.Flags().StringArrayVar(&defectNames, "defect", nil, "break the demo API on purpose, to see what findings look like (repeatable; see the list in fixtures/demo)")
	out.register(cmd.Flags())
	out.gate.register(cmd.Flags())
	lim.register(cmd.Flags())
	rf.registerRecord(cmd.Flags())
	registerTrustConfig(cmd.Flags())
	return cmd
}
