// The controller-runtime side of bench:runtime: the same measurements bench/runtime.mjs makes of crdgen, made of a
// controller-runtime manager on the same API server, printed as one JSON line on stdout.
//
//	controller-runtime-bench -kubeconfig <file> -mode informer   -variant typed|unstructured [-strip-managed-fields]
//	controller-runtime-bench -kubeconfig <file> -mode controller -variant typed|unstructured [-strip-managed-fields]
//	                         -workers <n> -targets <file: {"<namespace>/<name>": generation, ...}>
//
// informer: a cache (as a manager builds it) syncs the namespace's MySQLClusters; time until synced and every add
// event seen, heap per cached object (HeapAlloc after GC, after minus before), peak RSS.
// controller: a manager with one reconciler (reads the object from the cache, records its generation); time from
// start until every key in the targets file has been reconciled at its generation or later.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/log"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mysqlv1 "crdgen.local/bench/controller-runtime/api/v1"
)

var (
	mode        = flag.String("mode", "informer", "informer or controller")
	variant     = flag.String("variant", "typed", "typed (Go structs with deepcopy) or unstructured")
	strip       = flag.Bool("strip-managed-fields", false, "cache.TransformStripManagedFields as the default transform")
	namespace   = flag.String("namespace", "bench", "namespace of the objects")
	workers     = flag.Int("workers", 4, "MaxConcurrentReconciles (controller mode)")
	targetsFile = flag.String("targets", "", "JSON file of the generation each key must be reconciled at (controller mode)")
	timeout     = flag.Duration("timeout", 10*time.Minute, "give up after this long")
)

// kubeconfig is controller-runtime's own -kubeconfig flag (pkg/client/config registers it).
func kubeconfig() string { return flag.Lookup("kubeconfig").Value.String() }

func main() {
	flag.Parse()
	log.SetLogger(logr.Discard())
	var result any
	var err error
	switch *mode {
	case "informer":
		result, err = informerRun()
	case "controller":
		result, err = controllerRun()
	default:
		err = fmt.Errorf("unknown -mode %q (informer or controller)", *mode)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "controller-runtime-bench: %v\n", err)
		os.Exit(1)
	}
	if err := json.NewEncoder(os.Stdout).Encode(result); err != nil {
		os.Exit(1)
	}
}

func runtimeName() string {
	name := "controller-runtime (" + *variant
	if !*strip {
		name += ", managedFields kept"
	}
	return name + ")"
}

func newScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		return nil, err
	}
	return s, mysqlv1.AddToScheme(s)
}

// newObject is the object the cache and reconciler work with: the typed struct or an unstructured one of its kind.
func newObject() (client.Object, error) {
	switch *variant {
	case "typed":
		return &mysqlv1.MySQLCluster{}, nil
	case "unstructured":
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(mysqlv1.GroupVersion.WithKind("MySQLCluster"))
		return u, nil
	}
	return nil, fmt.Errorf("unknown -variant %q (typed or unstructured)", *variant)
}

func cacheOptions(s *runtime.Scheme) cache.Options {
	opts := cache.Options{Scheme: s, DefaultNamespaces: map[string]cache.Config{*namespace: {}}}
	if *strip {
		opts.DefaultTransform = cache.TransformStripManagedFields()
	}
	return opts
}

// settledHeap is HeapAlloc after garbage collection.
func settledHeap() uint64 {
	var m goruntime.MemStats
	for i := 0; i < 3; i++ {
		goruntime.GC()
	}
	goruntime.ReadMemStats(&m)
	return m.HeapAlloc
}

func peakRssMB() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Maxrss) / 1024 // kB on Linux
}

// rssMB is the resident set now (VmRSS), to show the runtime's own share of the peak.
func rssMB() float64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
			return kb / 1024
		}
	}
	return 0
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

type informerResult struct {
	Runtime       string  `json:"runtime"`
	Cached        int     `json:"cached"`
	Adds          int64   `json:"adds"`
	SyncMs        float64 `json:"syncMs"`
	HeapBefore    uint64  `json:"heapBefore"`
	HeapAfter     uint64  `json:"heapAfter"`
	HeapPerObject float64 `json:"heapPerObject"`
	PeakRssMB     float64 `json:"peakRssMB"`
	RssBeforeMB   float64 `json:"rssBeforeMB"`
}

func informerRun() (*informerResult, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig())
	if err != nil {
		return nil, err
	}
	s, err := newScheme()
	if err != nil {
		return nil, err
	}
	obj, err := newObject()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	before := settledHeap()
	rssBefore := rssMB()

	started := time.Now()
	c, err := cache.New(cfg, cacheOptions(s))
	if err != nil {
		return nil, err
	}
	inf, err := c.GetInformer(ctx, obj)
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	adds := int64(0)
	if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc: func(any) { mu.Lock(); adds++; mu.Unlock() },
	}); err != nil {
		return nil, err
	}
	go func() { _ = c.Start(ctx) }()
	if !c.WaitForCacheSync(ctx) {
		return nil, fmt.Errorf("cache did not sync within %s", *timeout)
	}
	list, err := newList()
	if err != nil {
		return nil, err
	}
	// Without deep copies: 10,000 copies would count in the peak RSS.
	if err := c.List(ctx, list, client.InNamespace(*namespace), client.UnsafeDisableDeepCopy); err != nil {
		return nil, err
	}
	cached := listLen(list)
	for {
		mu.Lock()
		n := adds
		mu.Unlock()
		if n >= int64(cached) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	syncMs := ms(time.Since(started))
	list = nil // the listed copies are not part of the cache
	after := settledHeap()
	goruntime.KeepAlive(c)
	return &informerResult{
		Runtime:       runtimeName(),
		Cached:        cached,
		Adds:          adds,
		SyncMs:        syncMs,
		HeapBefore:    before,
		HeapAfter:     after,
		HeapPerObject: (float64(after) - float64(before)) / float64(cached),
		PeakRssMB:     peakRssMB(),
		RssBeforeMB:   rssBefore,
	}, nil
}

func newList() (client.ObjectList, error) {
	if *variant == "typed" {
		return &mysqlv1.MySQLClusterList{}, nil
	}
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(mysqlv1.GroupVersion.WithKind("MySQLClusterList"))
	return l, nil
}

func listLen(l client.ObjectList) int {
	switch l := l.(type) {
	case *mysqlv1.MySQLClusterList:
		return len(l.Items)
	case *unstructured.UnstructuredList:
		return len(l.Items)
	}
	return 0
}

type controllerResult struct {
	Runtime          string  `json:"runtime"`
	Workers          int     `json:"workers"`
	Targets          int     `json:"targets"`
	ReconciledMs     float64 `json:"reconciledMs"`
	FirstReconcileMs float64 `json:"firstReconcileMs"`
	Reconciles       int64   `json:"reconciles"`
	ReconcilesPerSec float64 `json:"reconcilesPerSec"`
	Missing          int     `json:"missing"`
	PeakRssMB        float64 `json:"peakRssMB"`
}

// tracker records the newest generation reconciled per key and when every target was reached.
type tracker struct {
	mu         sync.Mutex
	targets    map[string]int64
	seen       map[string]int64
	behind     int
	reconciles int64
	first      time.Time
	done       chan struct{}
	doneAt     time.Time
}

func (t *tracker) reconciled(key string, generation int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.reconciles++
	if t.first.IsZero() {
		t.first = time.Now()
	}
	prev := t.seen[key]
	if generation <= prev {
		return
	}
	t.seen[key] = generation
	if want, ok := t.targets[key]; ok && prev < want && generation >= want {
		t.behind--
		if t.behind == 0 {
			t.doneAt = time.Now()
			close(t.done)
		}
	}
}

type reconciler struct {
	client  client.Client
	tracker *tracker
}

func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	obj, err := newObject()
	if err != nil {
		return reconcile.Result{}, err
	}
	if err := r.client.Get(ctx, req.NamespacedName, obj); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	r.tracker.reconciled(req.String(), obj.GetGeneration())
	return reconcile.Result{}, nil
}

func controllerRun() (*controllerResult, error) {
	raw, err := os.ReadFile(*targetsFile)
	if err != nil {
		return nil, fmt.Errorf("reading -targets: %w", err)
	}
	t := &tracker{seen: map[string]int64{}, done: make(chan struct{})}
	if err := json.Unmarshal(raw, &t.targets); err != nil {
		return nil, fmt.Errorf("%s: %w", *targetsFile, err)
	}
	t.behind = len(t.targets)
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig())
	if err != nil {
		return nil, err
	}
	s, err := newScheme()
	if err != nil {
		return nil, err
	}
	obj, err := newObject()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	started := time.Now()
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:  s,
		Cache:   cacheOptions(s),
		Metrics: metricsserver.Options{BindAddress: "0"},
		// Without this the client reads unstructured objects from the API server, not from the cache.
		Client: client.Options{Cache: &client.CacheOptions{Unstructured: true}},
	})
	if err != nil {
		return nil, err
	}
	if err := ctrl.NewControllerManagedBy(mgr).
		For(obj).
		Named("mysqlcluster").
		WithOptions(controller.Options{MaxConcurrentReconciles: *workers}).
		Complete(&reconciler{client: mgr.GetClient(), tracker: t}); err != nil {
		return nil, err
	}
	stopped := make(chan error, 1)
	go func() { stopped <- mgr.Start(ctx) }()
	select {
	case <-t.done:
	case err := <-stopped:
		return nil, fmt.Errorf("manager stopped: %v", err)
	case <-time.After(*timeout):
	}
	time.Sleep(time.Second) // count stragglers, if any
	cancel()
	<-stopped
	t.mu.Lock()
	defer t.mu.Unlock()
	res := &controllerResult{
		Runtime:    runtimeName(),
		Workers:    *workers,
		Targets:    len(t.targets),
		Reconciles: t.reconciles,
		Missing:    t.behind,
		PeakRssMB:  peakRssMB(),
	}
	if t.behind == 0 {
		res.ReconciledMs = ms(t.doneAt.Sub(started))
		res.FirstReconcileMs = ms(t.first.Sub(started))
		if span := t.doneAt.Sub(t.first).Seconds(); span > 0 {
			res.ReconcilesPerSec = float64(len(t.targets)) / span
		}
	}
	return res, nil
}
