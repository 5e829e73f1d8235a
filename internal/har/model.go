// Package har saves a scan's recording as an HTTP Archive (HAR 1.2) and reads
// it back, so that the checks can judge it again offline (--record,
// --replay). Every exchange is a HAR entry any HAR viewer opens; what the
// checks read besides the exchanges (the purpose and identity of each, the
// MCP snapshots, the OpenAPI document, the callers, the notes) is in the
// custom fields HAR 1.2 allows, named _agentready.
//
// The encoder is written here rather than taken from a library: the one Go
// HAR model among the project's vetted modules comes with a browser
// protocol's generated code, has no room for custom fields, and would still
// need this package's conversion from the recording, which is most of the
// work.
package har

import (
	"encoding/base64"
	"encoding/json"
	"unicode/utf8"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/mcp"
)

// Version is the HAR version written and read.
const Version = "1.2"

// Format numbers the layout of the _agentready fields; a reader refuses
// another, rather than judge a recording it half understands.
const Format = 1

type file struct {
	Log harLog `json:"log"`
}

type harLog struct {
	Version string    `json:"version"`
	Creator creator   `json:"creator"`
	Entries []entry   `json:"entries"`
	Comment string    `json:"comment,omitempty"`
	Scan    *scanData `json:"_agentready"`
}

type creator struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type entry struct {
	StartedDateTime string    `json:"startedDateTime"`
	Time            float64   `json:"time"`
	Request         request   `json:"request"`
	Response        response  `json:"response"`
	Cache           struct{}  `json:"cache"`
	Timings         timings   `json:"timings"`
	Data            entryData `json:"_agentready"`
}

type request struct {
	Method      string      `json:"method"`
	URL         string      `json:"url"`
	HTTPVersion string      `json:"httpVersion"`
	Cookies     []nameValue `json:"cookies"`
	Headers     []header    `json:"headers"`
	QueryString []nameValue `json:"queryString"`
	PostData    *postData   `json:"postData,omitempty"`
	HeadersSize int         `json:"headersSize"`
	BodySize    int         `json:"bodySize"`
}

type response struct {
	Status      int         `json:"status"`
	StatusText  string      `json:"statusText"`
	HTTPVersion string      `json:"httpVersion"`
	Cookies     []nameValue `json:"cookies"`
	Headers     []header    `json:"headers"`
	Content     content     `json:"content"`
	RedirectURL string      `json:"redirectURL"`
	HeadersSize int         `json:"headersSize"`
	BodySize    int64       `json:"bodySize"`
	// Error is why no response came, as browsers write it in their HAR
	// files; the status is then 0.
	Error string `json:"_error,omitempty"`
}

type nameValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// header is one header line. A value that is not UTF-8 (a server may send
// Latin-1) is written with its bytes in _base64, since a JSON string would
// replace them, and the checks must judge what the server sent.
type header struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Base64 string `json:"_base64,omitempty"`
}

type postData struct {
	MimeType string `json:"mimeType"`
	Text     string `json:"text"`
	// Encoding is "base64" for a body that is not UTF-8, as in content.
	Encoding string `json:"_encoding,omitempty"`
}

type content struct {
	Size     int64   `json:"size"`
	MimeType string  `json:"mimeType"`
	Text     *string `json:"text,omitempty"`
	Encoding string  `json:"encoding,omitempty"`
}

type timings struct {
	Send    float64 `json:"send"`
	Wait    float64 `json:"wait"`
	Receive float64 `json:"receive"`
}

// entryData is what the recording knows of an exchange beyond HTTP.
type entryData struct {
	ID       string `json:"id"`
	Purpose  string `json:"purpose"`
	Source   text   `json:"source,omitempty"`
	BasedOn  text   `json:"basedOn,omitempty"`
	Depth    int    `json:"depth"`
	Identity string `json:"identity,omitempty"`
	// SharedWith are the other purposes the request was sent for: the
	// checks of each find it under its own purpose.
	SharedWith []use `json:"sharedWith,omitempty"`
	Error      text  `json:"error,omitempty"`
	// URL is the request URL when it is not UTF-8; see header.
	URL text `json:"url,omitempty"`
	// NoResponse marks an exchange that got no response at all.
	NoResponse bool `json:"noResponse,omitempty"`
	Truncated  bool `json:"truncated,omitempty"`
	Dropped    bool `json:"dropped,omitempty"`
	Unread     bool `json:"unread,omitempty"`
	Redactions int  `json:"redactions,omitempty"`
	// AfterHead is what the server sent after a HEAD response, which must
	// have no content; AfterHeadSize counts all of it.
	AfterHead     text  `json:"afterHead,omitempty"`
	AfterHeadSize int64 `json:"afterHeadSize,omitempty"`
	// Throttled is the first answer of a request that was throttled and
	// then answered otherwise when sent again (exchange.Response.Replaced).
	Throttled *throttledData `json:"throttled,omitempty"`
	// SessionStart are the requests that opened the MCP session the
	// request was sent in, which its curl line replays first.
	SessionStart []sessionRequest `json:"sessionStart,omitempty"`
}

// throttledData is an exchange.ThrottledAnswer: a status and the few
// header fields kept of it.
type throttledData struct {
	Status  int      `json:"status"`
	Headers []header `json:"headers"`
}

// use is an exchange.Use; its base URL is a URL the server may have named.
type use struct {
	Purpose string `json:"purpose"`
	BasedOn text   `json:"basedOn,omitempty"`
}

type sessionRequest struct {
	Method  string           `json:"method"`
	URL     text             `json:"url"`
	Headers []header         `json:"headers"`
	Body    *text            `json:"body,omitempty"`
	Start   []sessionRequest `json:"sessionStart,omitempty"`
}

// scanData is what the checks read besides the exchanges, which it names
// by their index in the entries.
type scanData struct {
	Format int    `json:"format"`
	Target string `json:"target"`
	// Recordings are the identities' recordings; Primary is the one every
	// family but leakage judges.
	Recordings []recordingData `json:"recordings"`
	Primary    int             `json:"primary"`
	Views      []viewData      `json:"views"`
	// MCP indexes Snapshots: the snapshot of the endpoint examined.
	MCP       *int           `json:"mcp"`
	Snapshots []snapshotData `json:"mcpSnapshots"`
	// Callers are the views' callers, in their order, which is their rank;
	// Caller is the one the primary recording was recorded as.
	Callers []exchange.Caller `json:"callers"`
	Caller  exchange.Caller   `json:"caller"`
	Active  *activeData       `json:"active"`
	// Trial is the trial's plan, its runs naming their exchanges by index.
	Trial *trialData    `json:"trial,omitempty"`
	Stats finding.Stats `json:"stats"`
	// Throttling is the probe's count of throttled requests, which the
	// exchanges alone do not tell: a retried request keeps its last answer.
	Throttling *finding.Throttling `json:"throttling,omitempty"`
	Notes      []string            `json:"notes"`
	OpenAPI    *specData           `json:"openapi"`
	BasePath   *basePath           `json:"basePath"`
	// Unfilled maps GET operations the exploration had no URL for to why.
	Unfilled map[string]string `json:"unfilled"`
	// TLSUnverified records that the servers' certificates were not
	// verified (--insecure), which every report of a replay says again.
	TLSUnverified bool `json:"tlsUnverified,omitempty"`
}

type recordingData struct {
	Target    string `json:"target"`
	Exchanges []int  `json:"exchanges"`
	Samples   []text `json:"samples"`
}

type viewData struct {
	Name      string `json:"name"`
	Recording *int   `json:"recording"`
	MCP       *int   `json:"mcp"`
}

type activeData struct {
	Allow     []string                `json:"allow"`
	Confirmed string                  `json:"confirmed"`
	Planned   int                     `json:"planned"`
	Sent      []finding.ActiveRequest `json:"sent"`
}

// trialData is an exchange.TrialPlan.
type trialData struct {
	Tasks    []exchange.TrialTask `json:"tasks"`
	Runs     []trialRunData       `json:"runs"`
	Reset    string               `json:"reset"`
	Notes    []string             `json:"notes,omitempty"`
	PlanOnly bool                 `json:"planOnly,omitempty"`
	Sent     bool                 `json:"sent,omitempty"`
}

// trialRunData is an exchange.TrialRun, its exchanges by index.
type trialRunData struct {
	Task      int                  `json:"task"`
	Player    string               `json:"player"`
	Resource  string               `json:"resource"`
	Identity  string               `json:"identity"`
	Steps     []exchange.TrialStep `json:"steps"`
	Exchanges []int                `json:"exchanges"`
	Roles     []string             `json:"roles"`
	CreatedAt string               `json:"createdAt,omitempty"`
	NoCleanup string               `json:"noCleanup,omitempty"`
}

// specData embeds the OpenAPI document the checks used, by its text, so
// that a replay loads the same document wherever it runs.
type specData struct {
	Source    string `json:"source"`
	File      string `json:"file"`
	Discovery string `json:"discovery"`
	SHA256    string `json:"sha256"`
	Text      text   `json:"text"`
}

type basePath struct {
	Path     string `json:"path"`
	How      string `json:"how"`
	Mismatch bool   `json:"mismatch"`
}

// snapshotData is an mcp.Snapshot. Its calls are listed once in Calls and
// named by index elsewhere, so that a call the snapshot names twice (a
// listing's page and the call list) is one call again when read.
type snapshotData struct {
	Endpoint        mcp.Endpoint   `json:"endpoint"`
	Identity        string         `json:"identity"`
	Verdict         mcp.Verdict    `json:"verdict"`
	ServerInfo      *text          `json:"serverInfo"`
	Capabilities    *text          `json:"capabilities"`
	SessionID       string         `json:"sessionId"`
	SessionDemanded *int           `json:"sessionDemanded"`
	Calls           []callData     `json:"calls"`
	Called          []int          `json:"called"`
	Listings        []listingData  `json:"listings"`
	Catalog         mcp.Catalog    `json:"catalog"`
	Others          []endpointData `json:"others"`
	Notes           []string       `json:"notes"`
	// ForeignOrigin names, in Calls, the opening request sent with a
	// foreign Origin; ResourceMetadata are the exchanges that looked for the
	// endpoint's protected resource metadata.
	ForeignOrigin    *int  `json:"foreignOrigin"`
	ResourceMetadata []int `json:"resourceMetadata"`
}

type callData struct {
	Method     string       `json:"method"`
	Era        mcp.Era      `json:"era"`
	Exchange   *int         `json:"exchange"`
	Message    *messageData `json:"message"`
	ParseError string       `json:"parseError"`
	Connection string       `json:"connection"`
}

type messageData struct {
	ID     *text     `json:"id"`
	Method string    `json:"method"`
	Result *text     `json:"result"`
	Error  *rpcError `json:"error"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    *text  `json:"data"`
}

type listingData struct {
	Label    string     `json:"label"`
	Pages    []pageData `json:"pages"`
	Tools    []toolData `json:"tools"`
	Complete bool       `json:"complete"`
	Problem  string     `json:"problem"`
	Failed   *int       `json:"failed"`
}

type pageData struct {
	Call       *int    `json:"call"`
	Cursor     *string `json:"cursor"`
	NextCursor *string `json:"nextCursor"`
	Raw        *text   `json:"raw"`
}

type toolData struct {
	Name         string           `json:"name"`
	Title        string           `json:"title"`
	Description  string           `json:"description"`
	InputSchema  *text            `json:"inputSchema"`
	OutputSchema *text            `json:"outputSchema"`
	Annotations  *mcp.Annotations `json:"annotations"`
	Meta         *text            `json:"meta"`
	Raw          *text            `json:"raw"`
	Page         int              `json:"page"`
	Index        int              `json:"index"`
	NameValid    bool             `json:"nameValid"`
}

type endpointData struct {
	Endpoint mcp.Endpoint `json:"endpoint"`
	Verdict  mcp.Verdict  `json:"verdict"`
	Calls    []int        `json:"calls"`
}

// text is a string whose bytes survive JSON: UTF-8 is written as a JSON
// string, anything else as {"base64": "..."}, since encoding/json would
// replace the invalid bytes and compact raw JSON, and a replay must judge
// exactly what the server sent.
type text string

func (t text) MarshalJSON() ([]byte, error) {
	if utf8.ValidString(string(t)) {
		return json.Marshal(string(t))
	}
	return json.Marshal(struct {
		Base64 string `json:"base64"`
	}{base64.StdEncoding.EncodeToString([]byte(t))})
}

func (t *text) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*t = text(s)
		return nil
	}
	var enc struct {
		Base64 string `json:"base64"`
	}
	if err := json.Unmarshal(b, &enc); err != nil {
		return err
	}
	raw, err := base64.StdEncoding.DecodeString(enc.Base64)
	if err != nil {
		return err
	}
	*t = text(raw)
	return nil
}

// rawText keeps nil apart from empty: an absent member is not an empty one.
func rawText(b []byte) *text {
	if b == nil {
		return nil
	}
	t := text(b)
	return &t
}

func rawBytes(t *text) []byte {
	if t == nil {
		return nil
	}
	return []byte(*t)
}
