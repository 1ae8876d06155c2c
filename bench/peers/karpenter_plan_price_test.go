//go:build test_performance

// Compiled into Karpenter's own scheduling_test package at build time (go test -overlay, see
// bench/peers/run): Karpenter's benchmark reports nodes but not what they cost, and the price of a
// plan is half of what nodesmith's solver is judged on. This file only calls the benchmark's
// unchanged helpers (setupScheduler, makeDiversePods, makePreferencePods) and reads the result;
// nothing of Karpenter's is modified or copied.
//
// For each scenario named in NODESMITH_PLAN_SCENARIOS (comma-separated: "diverse/<n>",
// "preferences/Respect", "preferences/Ignore") it solves once, exactly as benchmarkScheduler does
// (NumConcurrentReconciles(5), one NodePool, fake.InstanceTypes(400)), and prints one line
//
//	nodesmith-plan scenario=diverse/1000 pods=1000 placed=1000 nodes=200 price=123.456
//
// price is the launch price per hour of the plan: for each NodeClaim, the cheapest available
// offering, compatible with the NodeClaim's requirements, of any type in its InstanceTypeOptions
// (what Karpenter's fake cloud provider launches in Create). Karpenter's pod generators draw from
// one package-level rand seeded 42; it is reseeded before each scenario so a scenario's pods do
// not depend on which ran before it.
package scheduling_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"sigs.k8s.io/karpenter/pkg/controllers/provisioning/scheduling"
	"sigs.k8s.io/karpenter/pkg/operator/injection"
	"sigs.k8s.io/karpenter/pkg/operator/options"
	"sigs.k8s.io/karpenter/pkg/test"
)

func TestNodesmithPlanPrice(t *testing.T) {
	list := os.Getenv("NODESMITH_PLAN_SCENARIOS")
	if list == "" {
		t.Skip("NODESMITH_PLAN_SCENARIOS is not set")
	}
	for _, scenario := range strings.Split(list, ",") {
		r.Seed(42)
		var pods []*corev1.Pod
		var opts []scheduling.Options
		switch {
		case strings.HasPrefix(scenario, "diverse/"):
			n, err := strconv.Atoi(strings.TrimPrefix(scenario, "diverse/"))
			if err != nil {
				t.Fatalf("bad scenario %q", scenario)
			}
			pods = makeDiversePods(n)
		case scenario == "preferences/Respect":
			pods = makePreferencePods(4000)
		case scenario == "preferences/Ignore":
			pods = makePreferencePods(4000)
			opts = append(opts, scheduling.IgnorePreferences)
		default:
			t.Fatalf("unknown scenario %q", scenario)
		}
		ctx = options.ToContext(injection.WithControllerName(context.Background(), "provisioner"), test.Options())
		s, err := setupScheduler(ctx, pods, append(opts, scheduling.NumConcurrentReconciles(5))...)
		if err != nil {
			t.Fatalf("%s: creating scheduler: %s", scenario, err)
		}
		results, err := s.Solve(ctx, pods)
		if err != nil {
			t.Fatalf("%s: solve: %s", scenario, err)
		}
		placed := 0
		price := 0.0
		for _, nc := range results.NewNodeClaims {
			placed += len(nc.Pods)
			cheapest := math.Inf(1)
			for _, it := range nc.InstanceTypeOptions {
				if ofs := it.Offerings.Available().Compatible(nc.Requirements); len(ofs) > 0 {
					cheapest = math.Min(cheapest, ofs.Cheapest().Price)
				}
			}
			if math.IsInf(cheapest, 1) {
				t.Fatalf("%s: a NodeClaim has no launchable offering", scenario)
			}
			price += cheapest
		}
		fmt.Printf("nodesmith-plan scenario=%s pods=%d placed=%d nodes=%d price=%.4f\n",
			scenario, len(pods), placed, len(results.NewNodeClaims), price)
	}
}
