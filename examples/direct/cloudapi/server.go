// Package cloudapi is the example's fake cloud: an HTTP server on loopback
// that keeps Datasets in memory, and a client for it. The controller reaches
// it through a real HTTP round trip, as it would a cloud provider's API.
//
// The server can be slowed down (Latency), made to fail (InjectFailure), and
// watched (Observe), so that the example and its tests can show what a user
// sees while an external call runs or after it fails.
//
// Its REST surface, JSON bodies in protojson:
//
//	GET    /v1/projects/{project}/datasets/{dataset}
//	POST   /v1/projects/{project}/datasets?datasetId={dataset}
//	PATCH  /v1/projects/{project}/datasets/{dataset}?updateMask=description,labels[&async=true]
//	DELETE /v1/projects/{project}/datasets/{dataset}
//	GET    /v1/projects/{project}/operations/{operation}
//
// POST and PATCH take an idempotency key, requestId, as Google Cloud's APIs
// do: a write with a key the server has accepted before gets that write's
// answer again (the same operation, for an asynchronous update) and
// changes nothing, so a client that retries after losing the answer acts
// once.
//
// Errors are {"error": {"code": 400, "message": "...", "status": "INVALID_ARGUMENT"}}.
package cloudapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// A Failure makes matching requests fail.
type Failure struct {
	// Method is the HTTP method that fails (GET, POST, PATCH, DELETE); empty
	// matches every method.
	Method string
	// Code is the HTTP status code returned. Defaults to 503.
	Code int
	// Message is the error message returned.
	Message string
	// Times is how many matching requests fail. Defaults to 1.
	Times int
}

// A Server is the fake cloud API.
type Server struct {
	listener net.Listener
	http     *http.Server
	done     chan struct{}

	mu       sync.Mutex
	latency  time.Duration
	datasets map[string]*Dataset // by name
	failures []Failure
	calls    map[string]int // by method
	observe  func(method, name string)
	etag     int

	requests map[string]request // accepted requests, by requestId
	applied  map[string]int     // writes applied, by method

	opDelay time.Duration         // how long an asynchronous update runs
	opFail  string                // when set, asynchronous updates fail with it
	ops     map[string]*operation // by name
	opSeq   int
}

// A request is a write the server accepted with a requestId: a call with
// the same key and target gets its answer again, and changes nothing.
type request struct {
	method, target string
	operation      string // the operation an asynchronous update started
}

// An operation is an asynchronous update: at due, result replaces the
// dataset target, or the operation fails with fail.
type operation struct {
	target string
	result *Dataset
	due    time.Time
	fail   string
	done   bool
}

// NewServer starts a fake cloud API on a free loopback port. Every request
// takes at least latency. Close stops it.
func NewServer(latency time.Duration) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("cannot listen on loopback: %w", err)
	}
	s := &Server{
		listener: ln,
		done:     make(chan struct{}),
		latency:  latency,
		datasets: map[string]*Dataset{},
		calls:    map[string]int{},
		ops:      map[string]*operation{},
		requests: map[string]request{},
		applied:  map[string]int{},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/projects/{project}/datasets/{dataset}", s.get)
	mux.HandleFunc("POST /v1/projects/{project}/datasets", s.create)
	mux.HandleFunc("PATCH /v1/projects/{project}/datasets/{dataset}", s.update)
	mux.HandleFunc("DELETE /v1/projects/{project}/datasets/{dataset}", s.delete)
	mux.HandleFunc("GET /v1/projects/{project}/operations/{operation}", s.getOperation)
	s.http = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.done)
		_ = s.http.Serve(ln)
	}()
	return s, nil
}

// URL is the server's base URL, e.g. http://127.0.0.1:41234.
func (s *Server) URL() string { return "http://" + s.listener.Addr().String() }

// Close stops the server.
func (s *Server) Close() error {
	err := s.http.Close()
	<-s.done
	return err
}

// SetLatency sets how long every request takes from now on.
func (s *Server) SetLatency(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.latency = d
}

// InjectFailure queues a failure: the next f.Times requests with f.Method
// fail with f.Code and f.Message, after the latency, changing nothing.
func (s *Server) InjectFailure(f Failure) {
	if f.Code == 0 {
		f.Code = http.StatusServiceUnavailable
	}
	if f.Times <= 0 {
		f.Times = 1
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures = append(s.failures, f)
}

// Observe sets a function called at the start of every request, with its
// method and the dataset's name, before the latency. Tests use it to look at
// the world while an external call runs. Nil removes it.
func (s *Server) Observe(f func(method, name string)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.observe = f
}

// Calls returns how many requests with method the server has received.
func (s *Server) Calls(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[method]
}

// Applied returns how many writes with method the server has applied:
// requests that changed a dataset or started an operation, not those
// refused, failed or answered again for a repeated requestId.
func (s *Server) Applied(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.applied[method]
}

// replay answers a write whose requestId the server has accepted before,
// with that request's answer, and reports whether it did. A key reused
// for another method or dataset is refused. Called with s.mu held.
func (s *Server) replay(w http.ResponseWriter, r *http.Request, name string) bool {
	id := r.URL.Query().Get("requestId")
	prev, ok := s.requests[id]
	if id == "" || !ok {
		return false
	}
	if prev.method != r.Method || prev.target != name {
		writeError(w, http.StatusBadRequest, "requestId "+id+" was used for another request")
		return true
	}
	if prev.operation != "" {
		op := s.ops[prev.operation]
		writeOperation(w, prev.operation, op.done, op.fail)
		return true
	}
	if d, ok := s.datasets[name]; ok {
		writeDataset(w, http.StatusOK, d)
		return true
	}
	writeError(w, http.StatusNotFound, "dataset "+name+" not found")
	return true
}

// accept records a write that the server applies: its requestId, when it
// has one, and the count.
func (s *Server) accept(r *http.Request, name, operation string) {
	if id := r.URL.Query().Get("requestId"); id != "" {
		s.requests[id] = request{method: r.Method, target: name, operation: operation}
	}
	s.applied[r.Method]++
}

// Dataset returns a copy of the dataset with the full name, if it exists.
func (s *Server) Dataset(name string) (*Dataset, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.datasets[name]
	if !ok {
		return nil, false
	}
	return proto.Clone(d).(*Dataset), true
}

// begin counts a request, lets the observer see it, waits for the latency,
// and answers with a failure, if one is due. It reports whether the request
// goes on.
func (s *Server) begin(w http.ResponseWriter, r *http.Request, name string) bool {
	if f := s.failure(r, name); f != nil {
		writeError(w, f.Code, f.Message)
		return false
	}
	return true
}

// failure is begin up to the answer: it returns the failure that is due, or
// nil.
func (s *Server) failure(r *http.Request, name string) *Failure {
	s.mu.Lock()
	s.calls[r.Method]++
	observe, latency := s.observe, s.latency
	s.mu.Unlock()
	if observe != nil {
		observe(r.Method, name)
	}
	if latency > 0 {
		t := time.NewTimer(latency)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.failures {
		f := &s.failures[i]
		if f.Method != "" && f.Method != r.Method {
			continue
		}
		out := *f
		if f.Times--; f.Times == 0 {
			s.failures = append(s.failures[:i], s.failures[i+1:]...)
		}
		return &out
	}
	return nil
}

func datasetName(r *http.Request, id string) string {
	return "projects/" + r.PathValue("project") + "/datasets/" + id
}

func (s *Server) get(w http.ResponseWriter, r *http.Request) {
	name := datasetName(r, r.PathValue("dataset"))
	if !s.begin(w, r, name) {
		return
	}
	d, ok := s.Dataset(name)
	if !ok {
		writeError(w, http.StatusNotFound, "dataset "+name+" not found")
		return
	}
	writeDataset(w, http.StatusOK, d)
}

func (s *Server) create(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("datasetId")
	name := datasetName(r, id)
	d, ok := s.beginWrite(w, r, name)
	if !ok {
		return
	}
	if !validID(id) {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("invalid datasetId %q: use letters, digits and underscores", id))
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.replay(w, r, name) {
		return
	}
	if _, ok := s.datasets[name]; ok {
		writeError(w, http.StatusConflict, "dataset "+name+" already exists")
		return
	}
	s.accept(r, name, "")
	now := timestamppb.Now()
	d.Name, d.CreateTime, d.UpdateTime = name, now, now
	s.etag++
	d.Etag = strconv.Itoa(s.etag)
	s.datasets[name] = d
	writeDataset(w, http.StatusOK, d)
}

func (s *Server) update(w http.ResponseWriter, r *http.Request) {
	name := datasetName(r, r.PathValue("dataset"))
	patch, ok := s.beginWrite(w, r, name)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.replay(w, r, name) {
		return
	}
	d, ok := s.datasets[name]
	if !ok {
		writeError(w, http.StatusNotFound, "dataset "+name+" not found")
		return
	}
	md := d.ProtoReflect().Descriptor()
	updated := proto.Clone(d).(*Dataset)
	for _, path := range strings.Split(r.URL.Query().Get("updateMask"), ",") {
		if path == "" {
			continue
		}
		fd := md.Fields().ByName(protoreflect.Name(path))
		switch {
		case fd == nil:
			writeError(w, http.StatusBadRequest, fmt.Sprintf("updateMask: unknown field %q", path))
			return
		case path == "location" && patch.Location != d.Location:
			writeError(w, http.StatusBadRequest, fmt.Sprintf("location is immutable: cannot change it from %q to %q", d.Location, patch.Location))
			return
		case path == "name" || path == "etag" || path == "create_time" || path == "update_time":
			writeError(w, http.StatusBadRequest, fmt.Sprintf("updateMask: field %q is output only", path))
			return
		}
		if patch.ProtoReflect().Has(fd) {
			updated.ProtoReflect().Set(fd, patch.ProtoReflect().Get(fd))
		} else {
			updated.ProtoReflect().Clear(fd)
		}
	}
	if r.URL.Query().Get("async") == "true" {
		s.opSeq++
		op := "projects/" + r.PathValue("project") + "/operations/op-" + strconv.Itoa(s.opSeq) + ".update"
		s.ops[op] = &operation{target: name, result: updated, due: time.Now().Add(s.opDelay), fail: s.opFail}
		s.accept(r, name, op)
		writeOperation(w, op, false, "")
		return
	}
	s.accept(r, name, "")
	s.store(name, updated)
	writeDataset(w, http.StatusOK, updated)
}

// store saves d as the dataset name, with a new update time and etag.
func (s *Server) store(name string, d *Dataset) {
	d.UpdateTime = timestamppb.Now()
	s.etag++
	d.Etag = strconv.Itoa(s.etag)
	s.datasets[name] = d
}

// SetOperationDelay sets how long an asynchronous update (PATCH with
// async=true) runs before its operation is done; failure, when not empty,
// makes the operations started from now on fail with that message.
func (s *Server) SetOperationDelay(d time.Duration, failure string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opDelay, s.opFail = d, failure
}

// getOperation reports an operation; the first poll after it is due
// applies its update (or its failure).
func (s *Server) getOperation(w http.ResponseWriter, r *http.Request) {
	name := "projects/" + r.PathValue("project") + "/operations/" + r.PathValue("operation")
	if !s.begin(w, r, name) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	op, ok := s.ops[name]
	if !ok {
		writeError(w, http.StatusNotFound, "operation "+name+" not found")
		return
	}
	if !op.done && !time.Now().Before(op.due) {
		op.done = true
		if op.fail == "" {
			s.store(op.target, op.result)
		}
	}
	writeOperation(w, name, op.done, op.fail)
}

func writeOperation(w http.ResponseWriter, name string, done bool, fail string) {
	o := OperationStatus{Name: name, Done: done}
	if done && fail != "" {
		o.Error = &OperationError{Message: fail}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(w).Encode(o)
}

// OperationStatus is a long-running operation as the API reports it.
type OperationStatus struct {
	Name  string          `json:"name"`
	Done  bool            `json:"done"`
	Error *OperationError `json:"error,omitempty"`
}

// OperationError is why an operation failed.
type OperationError struct {
	Message string `json:"message"`
}

func (s *Server) delete(w http.ResponseWriter, r *http.Request) {
	name := datasetName(r, r.PathValue("dataset"))
	if !s.begin(w, r, name) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.datasets[name]; !ok {
		writeError(w, http.StatusNotFound, "dataset "+name+" not found")
		return
	}
	delete(s.datasets, name)
	w.WriteHeader(http.StatusNoContent)
}

func validID(id string) bool {
	if id == "" || len(id) > 1024 {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// validate applies the cloud's rules to the settable fields.
func validate(d *Dataset) error {
	if len(d.Description) > 16384 {
		return errors.New("description: longer than 16384 characters")
	}
	for k, v := range d.Labels {
		if k == "" || strings.ToLower(k) != k || len(k) > 63 || len(v) > 63 {
			return fmt.Errorf("labels: invalid label %q=%q: keys are 1-63 lower-case characters, values at most 63", k, v)
		}
	}
	if d.DefaultTableExpirationMs != 0 && d.DefaultTableExpirationMs < 3600000 {
		return fmt.Errorf("default_table_expiration_ms: %d is less than one hour", d.DefaultTableExpirationMs)
	}
	for i, a := range d.Access {
		if a.Role != "READER" && a.Role != "WRITER" && a.Role != "OWNER" {
			return fmt.Errorf("access[%d].role: %q is not READER, WRITER or OWNER", i, a.Role)
		}
	}
	return nil
}

// beginWrite is begin for a request that carries a Dataset: if the request
// goes on, it also reads the Dataset from the body and validates it, or
// answers with why it cannot.
func (s *Server) beginWrite(w http.ResponseWriter, r *http.Request, name string) (*Dataset, bool) {
	if !s.begin(w, r, name) {
		return nil, false
	}
	d, err := decodeDataset(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return nil, false
	}
	return d, true
}

func decodeDataset(r *http.Request) (*Dataset, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("cannot read the request body: %w", err)
	}
	d := &Dataset{}
	if err := protojson.Unmarshal(body, d); err != nil {
		return nil, fmt.Errorf("cannot parse the request body: %w", err)
	}
	return d, validate(d)
}

func writeDataset(w http.ResponseWriter, code int, d *Dataset) {
	body, err := protojson.Marshal(d)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(body)
}

type errorBody struct {
	Error struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Status  string `json:"status"`
	} `json:"error"`
}

var statusNames = map[int]string{
	http.StatusBadRequest:          "INVALID_ARGUMENT",
	http.StatusNotFound:            "NOT_FOUND",
	http.StatusConflict:            "ALREADY_EXISTS",
	http.StatusForbidden:           "PERMISSION_DENIED",
	http.StatusTooManyRequests:     "RESOURCE_EXHAUSTED",
	http.StatusInternalServerError: "INTERNAL",
	http.StatusServiceUnavailable:  "UNAVAILABLE",
}

func writeError(w http.ResponseWriter, code int, msg string) {
	var b errorBody
	b.Error.Code, b.Error.Message, b.Error.Status = code, msg, statusNames[code]
	if b.Error.Status == "" {
		b.Error.Status = "UNKNOWN"
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(b)
}
