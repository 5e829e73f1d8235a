#!/usr/bin/env python3
"""What each matrix server really does, recorded apart from the scanner.

Reads the manifest matrix.sh writes (MATRIX_MANIFEST, or the path given),
sends each server the requests a user would send with curl, and writes
oracle/<server>.json: one row per fact, each with the curl line that shows
it ($BASE stands for the server's URL, whose port changes from run to run).

A row names the check it decides and says whether the server has the defect
("defect": true), has not (false), or the request cannot tell (null). The
Matrix test (internal/interop/matrix_test.go) compares the scanner's
findings with these rows. Nothing here imports or runs the scanner: the
oracle reads the RFCs' and the MCP specification's words, not the code.

Only GET, HEAD and OPTIONS go to an app, and only POSTs of read-only MCP
methods to an MCP endpoint, as the scanner sends. --unsupported-method M
adds one request with another safe method (RFC 9110 §9.2.1), never by
default.

    python3 oracle.py [--manifest FILE] [--out DIR] [--only NAME] [--unsupported-method M] [--check]

--check writes nothing: it fails (exit 1) when a server no longer does what
its committed record says, so that a comparison never rests on a stale one.
"""

import argparse
import http.client
import json
import os
import re
import shlex
import sys
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
TIMEOUT = 10
MAX_BODY = 1 << 20
MISSING = "agentready-missing-7f3c"
UNSUPPORTED = "application/x-agentready-unsupported"
# The Accept values whose answers say which representations a resource has.
ACCEPTS = ["text/html", "application/xml", "text/markdown", "application/json", "*/*", None]
Q_ZERO = "application/json;q=0, text/html"
FOREIGN_ORIGIN = "http://attacker.invalid"
LATEST = "2026-07-28"
LEGACY = ["2025-11-25", "2025-03-26"]
SAFE_METHODS = {"TRACE", "PROPFIND", "SEARCH", "REPORT"}


class Answer:
    """One response: status, the headers that matter here, and the body."""

    def __init__(self, status, headers, body):
        self.status = status
        # A header sent more than once is one list (RFC 9110 §5.3): Link,
        # for one, may come in several fields.
        self.headers = {}
        for k, v in headers:
            k = k.lower()
            self.headers[k] = f"{self.headers[k]}, {v}" if k in self.headers else v
        self.body = body

    def header(self, name):
        return self.headers.get(name.lower(), "")

    def media_type(self):
        return self.header("content-type").split(";")[0].strip().lower()

    def vary(self):
        return [v.strip().lower() for v in self.header("vary").split(",") if v.strip()]

    def summary(self):
        out = {"status": self.status, "contentType": self.header("content-type")}
        for name in ("vary", "content-length"):
            if self.header(name):
                out[name] = self.header(name)
        # Method lists in sorted order: some servers (Flask) build them from
        # a set, whose order changes from run to run.
        for name in ("allow", "access-control-allow-methods"):
            if self.header(name):
                out[name] = ", ".join(sorted(m.strip() for m in self.header(name).split(",")))
        out["bodyBytes"] = len(self.body)
        return out


def send(base, method, path, headers=None, body=None, stream=False):
    """One request on a connection of its own. With stream, only the
    status and headers are read: an SSE stream may never end."""
    u = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=TIMEOUT)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        # HEAD has no body whatever the headers say; http.client knows.
        data = b"" if stream else resp.read(MAX_BODY)
        return Answer(resp.status, resp.getheaders(), data)
    finally:
        conn.close()


def curl(method, path, headers=None, body=None):
    parts = ["curl", "-sS", "-i"]
    if method == "HEAD":
        parts.append("-I")
    elif method != "GET":
        parts += ["-X", method]
    for k, v in (headers or {}).items():
        parts += ["-H", f"{k}: {v}"]
    if body is not None:
        parts += ["--data-raw", body]
    # $BASE is left for the shell to expand: the server's URL of that run.
    return " ".join(shlex.quote(p) for p in parts) + ' "$BASE"' + shlex.quote(path)


class Recorder:
    def __init__(self, name, kind, base):
        self.name, self.kind, self.base = name, kind, base
        self.rows = []
        # Every request sent, in order, with its answer: the passes that
        # judge every error met read them (error_rows, declared_statuses).
        self.asked = []

    def ask(self, method, path, headers=None, body=None, stream=False):
        answer, line = send(self.base, method, path, headers, body, stream), curl(method, path, headers, body)
        self.asked.append((method, path, headers or {}, answer, line))
        return answer, line

    def row(self, family, check, method, path, what, answer, line, defect, scope="resource", **extra):
        r = {
            "family": family,
            "check": check,
            "scope": scope,
            "method": method,
            "path": path,
            "what": what,
            "observed": answer.summary() if isinstance(answer, Answer) else answer,
            "defect": defect,
            "curl": line,
        }
        r.update(extra)
        self.rows.append(r)


def accept_headers(accept):
    return {} if accept is None else {"Accept": accept}


def is_problem(answer):
    return answer.media_type() == "application/problem+json"


def json_object(answer):
    try:
        value = json.loads(answer.body)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def linked_paths(path, value):
    """The same-origin paths a JSON answer at path leads a client to: an item
    of a plain JSON list (by its "id"), the links of a HAL resource, and the
    first resource it embeds."""
    out = []
    if isinstance(value, list) and value and isinstance(value[0], dict) and "id" in value[0]:
        out.append(f"{path.rstrip('/')}/{value[0]['id']}")
    elif isinstance(value, dict):
        links = value.get("_links")
        for rel, link in (links if isinstance(links, dict) else {}).items():
            if rel != "self" and isinstance(link, dict) and str(link.get("href", "")).startswith("/"):
                out.append(link["href"])
        embedded = value.get("_embedded")
        for group in (embedded if isinstance(embedded, dict) else {}).values():
            if isinstance(group, list) and group and isinstance(group[0], dict):
                href = str(((group[0].get("_links") or {}).get("self") or {}).get("href", ""))
                if href.startswith("/"):
                    out.append(href)
    return out


# The items of a plain collection whose HEAD is recorded besides the first,
# which is recorded fully.
MORE_ITEMS = 2


def plain_items(rec, start):
    """The paths of the start page's items when it is a bare JSON array of
    objects with an id, as <start>/<id>."""
    answer, _ = rec.ask("GET", start, {"Accept": "application/json"})
    try:
        items = json.loads(answer.body)
    except ValueError:
        return []
    if not isinstance(items, list):
        return []
    return [f"{start.rstrip('/')}/{it['id']}" for it in items if isinstance(it, dict) and "id" in it]


def app_resources(rec, start):
    """The resource the scan starts from and those it leads to, two steps
    deep, as a client following links would reach them: a collection and an
    item of it, or a HAL root, its collection and an item."""
    paths, frontier = [start], [start]
    for _ in range(2):
        found = []
        for path in frontier:
            answer, _ = rec.ask("GET", path, {"Accept": "application/json"})
            try:
                value = json.loads(answer.body)
            except ValueError:
                continue
            for p in linked_paths(path, value):
                if p not in paths:
                    paths.append(p)
                    found.append(p)
        frontier = found
    return paths


def negotiation(rec, path):
    """Representations, q=0, an unsupported type, */*, and Vary."""
    answers = {}
    for accept in ACCEPTS:
        answer, line = rec.ask("GET", path, accept_headers(accept))
        answers[accept] = answer
        rec.row("negotiation", "", "GET", path, f"Accept: {accept or '(none)'}", answer, line, None,
                served=answer.media_type() if 200 <= answer.status < 300 else "")
    default = answers[None]
    served = {a.media_type() for a in answers.values() if 200 <= a.status < 300}

    wildcard = answers["*/*"]
    rec.row("negotiation", "negotiation-wildcard", "GET", path, "Accept: */* gets a representation",
            wildcard, curl("GET", path, {"Accept": "*/*"}), not 200 <= wildcard.status < 300)

    answer, line = rec.ask("GET", path, {"Accept": UNSUPPORTED})
    conformant = answer.status == 406 or (
        answer.status == default.status and answer.media_type() == default.media_type())
    rec.row("negotiation", "negotiation-unsupported-type", "GET", path,
            "an unsupported Accept gets 406 or the default representation", answer, line, not conformant)

    answer, line = rec.ask("GET", path, {"Accept": Q_ZERO})
    html = answers["text/html"]
    html_available = 200 <= html.status < 300 and html.media_type() == "text/html"
    served_excluded = 200 <= answer.status < 300 and answer.media_type() == "application/json"
    # Serving the excluded type is a defect only when another was available
    # (RFC 9110 §12.5.1 lets a server disregard Accept otherwise).
    rec.row("negotiation", "negotiation-q-zero", "GET", path,
            "application/json;q=0 is not served when text/html is available", answer, line,
            served_excluded if html_available else (False if not served_excluded else None),
            htmlAvailable=html_available, honoured=not served_excluded)

    # Vary: the response depends on Accept when two Accept values get
    # different statuses or media types; each such response should list it.
    outcomes = {(a.status, a.media_type()) for a in answers.values()}
    outcomes.add((answer.status, answer.media_type()))
    negotiated = len(outcomes) > 1
    missing = [str(k) for k, a in answers.items() if negotiated and 200 <= a.status < 300 and "accept" not in a.vary()]
    rec.row("vary", "vary-accept", "GET", path,
            "responses that depend on Accept list Accept in Vary",
            {"outcomes": sorted(f"{s} {t}" for s, t in outcomes), "withoutVary": missing,
             "served": sorted(served)},
            curl("GET", path, {"Accept": "text/html"}), bool(missing) if negotiated else False)


def head(rec, path):
    get, _ = rec.ask("GET", path)
    answer, line = rec.ask("HEAD", path)
    rec.row("negotiation", "negotiation-head-status", "HEAD", path, "HEAD answers the status GET does",
            answer, line, answer.status != get.status, getStatus=get.status)
    # Content-Type and Content-Length are compared only when HEAD gets
    # GET's status: otherwise it is another response, judged by the row above.
    if 200 <= get.status < 300 and answer.status == get.status:
        rec.row("negotiation", "negotiation-head-content-type", "HEAD", path,
                "HEAD sends the Content-Type GET sends", answer, line,
                answer.header("content-type") != get.header("content-type"),
                getContentType=get.header("content-type"))
        length = answer.header("content-length")
        rec.row("negotiation", "negotiation-head-content-length", "HEAD", path,
                "HEAD's Content-Length, when sent, is GET's body length", answer, line,
                bool(length) and length != str(len(get.body)), getBodyBytes=len(get.body))
    rec.row("negotiation", "", "HEAD", path, "HEAD has no body", answer, line, None, bodyBytes=len(answer.body))
    return answer


def options(rec, path, unsupported_method):
    answer, line = rec.ask("OPTIONS", path)
    allow = answer.header("allow")
    cors = answer.header("access-control-allow-methods")
    ok = 200 <= answer.status < 300
    rec.row("negotiation", "negotiation-options-allow", "OPTIONS", path,
            "a successful OPTIONS advertises Allow", answer, line, ok and not allow)
    rec.row("negotiation", "negotiation-options-cors-only", "OPTIONS", path,
            "OPTIONS lists methods in Allow, not only in CORS headers", answer, line,
            ok and not allow and bool(cors), scope="site")
    rec.row("negotiation", "negotiation-options-client-error", "OPTIONS", path,
            "OPTIONS is not answered 404 or another client error", answer, line,
            400 <= answer.status < 500 and answer.status != 405)
    rec.row("negotiation", "negotiation-options-failed", "OPTIONS", path,
            "OPTIONS does not fail with a server error", answer, line, answer.status >= 500)
    tried = [("OPTIONS", answer, line)]
    if unsupported_method:
        tried.append((unsupported_method, *rec.ask(unsupported_method, path)))
    tried.append(("HEAD", *rec.ask("HEAD", path)))
    for method, a, l in tried:
        if a.status == 405:
            rec.row("negotiation", "negotiation-allow-on-405", method, path, "a 405 carries Allow", a, l,
                    not a.header("allow"))
    return answer


def errors(rec, path):
    """Asks for a missing resource as an agent asks: JSON, or anything. The
    rows come from error_rows, which judges every error met."""
    for accept in ("application/json", "*/*"):
        answer, line = rec.ask("GET", path, {"Accept": accept})
        if answer.status < 400:
            rec.row("problem-json", "", "GET", path, f"{path} answers {answer.status}", answer, line, None)


# The query strings the scanner's safe error probes add to a collection: an
# encoded colon in a cursor, a flag without a value, a negative limit.
QUERY_PROBES = ["cursor=a%3Ab", "debug&limit=1", "limit=-1"]


def query_probes(rec, path):
    for query in QUERY_PROBES:
        answer, line = rec.ask("GET", f"{path}?{query}", {"Accept": "application/json"})
        rec.row("problem-json", "", "GET", f"{path}?{query}", f"the query ?{query} on {path}", answer, line, None)


def error_rows(rec):
    """The media type of every error answer met, whatever asked for it (a
    missing resource, OPTIONS, an Accept): RFC 9457's problem details, or
    not. HEAD has no body to judge."""
    for method, path, headers, answer, line in rec.asked:
        if answer.status < 400 or method == "HEAD":
            continue
        accept = headers.get("Accept", "(none)")
        obj = json_object(answer)
        problem_shaped = obj is not None and ("title" in obj or "type" in obj) and "status" in obj
        rec.row("problem-json", "problem-json-media-type", method, path,
                f"the {answer.status} to {method} with Accept: {accept} is application/problem+json", answer, line,
                not is_problem(answer), status=answer.status, problemShaped=problem_shaped)
        rec.row("problem-json", "problem-json-served-as-json", method, path,
                "a problem-shaped body is not served as plain JSON", answer, line,
                problem_shaped and answer.media_type() == "application/json", status=answer.status)


def record_app(rec, start, spec, unsupported_method):
    resources = app_resources(rec, start)
    for path in resources:
        negotiation(rec, path)
        head(rec, path)
        options(rec, path, unsupported_method)
    # HEAD on the next items of a plain collection: HEAD is judged item by
    # item. OPTIONS, whose answer a router gives every item alike, is
    # judged once per path shape, on the first item above.
    for path in plain_items(rec, start)[1:1 + MORE_ITEMS]:
        head(rec, path)
    missing_item = f"{resources[-1].rsplit('/', 1)[0]}/{MISSING}" if len(resources) > 1 else f"/items/{MISSING}"
    for path in (f"/{MISSING}", missing_item):
        errors(rec, path)
        head(rec, path)
    query_probes(rec, start)
    error_rows(rec)
    if spec != "-":
        answer, line = rec.ask("GET", spec, {"Accept": "application/json"})
        doc = json_object(answer)
        rec.row("openapi", "", "GET", spec, "the server serves its own OpenAPI document", answer, line, None,
                openapi=(doc or {}).get("openapi") or (doc or {}).get("swagger"),
                paths=sorted((doc or {}).get("paths", {})))
        allow_declared(rec, (doc or {}).get("paths", {}))
        declared_statuses(rec, (doc or {}).get("paths", {}))
        document_readiness(rec, doc or {}, spec, line)
        service_desc(rec, start)
    # Every 5xx any request above met is a defect of its own.
    for r in list(rec.rows):
        obs = r["observed"]
        if isinstance(obs, dict) and obs.get("status", 0) >= 500 and r["check"] != "problem-json-server-error":
            rec.row("problem-json", "problem-json-server-error", r["method"], r["path"], "a safe request gets no 5xx",
                    obs, r["curl"], True, status=obs["status"])
    rec.rows = dedupe(rec.rows)


HTTP_METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}


def template_matches(template, path):
    """Whether an OpenAPI path template (/items/{id}) covers a concrete path."""
    t, p = template.strip("/").split("/"), path.strip("/").split("/")
    return len(t) == len(p) and all(a == b or (a.startswith("{") and a.endswith("}")) for a, b in zip(t, p))


def allow_declared(rec, paths):
    """Every 405 met above with an Allow, against the methods the document
    declares on its path (RFC 9110 §15.5.6: Allow lists the resource's
    supported methods). A literal template wins over a templated one."""
    for r in list(rec.rows):
        obs = r["observed"]
        if not isinstance(obs, dict) or obs.get("status") != 405 or not obs.get("allow"):
            continue
        matches = sorted((t for t in paths if template_matches(t, r["path"])), key=lambda t: t.count("{"))
        if not matches:
            continue
        declared = sorted(m.upper() for m in paths[matches[0]] if m in HTTP_METHODS)
        allowed = {m.strip().upper() for m in obs["allow"].split(",")}
        missing = [m for m in declared if m not in allowed]
        rec.row("negotiation", "negotiation-allow-declared", r["method"], r["path"],
                "a 405's Allow lists the methods the document declares on that path", obs, r["curl"],
                bool(missing), declared=declared, template=matches[0])


def declared_statuses(rec, paths):
    """Every 4xx met on an operation the document declares, against the
    responses it declares there: the status, its range (4XX) or default
    (OpenAPI 3.1 §4.8.16). A 5xx is a failure, not part of the contract, and
    HEAD is the GET operation's, so neither is judged."""
    for method, path, _, answer, line in rec.asked:
        if not 400 <= answer.status < 500 or method == "HEAD":
            continue
        bare = path.split("?", 1)[0]
        matches = sorted((t for t in paths if template_matches(t, bare)), key=lambda t: t.count("{"))
        op = paths[matches[0]].get(method.lower()) if matches else None
        if not isinstance(op, dict):
            continue
        responses = sorted(str(k).upper() for k in (op.get("responses") or {}))
        declared = str(answer.status) in responses or f"{answer.status // 100}XX" in responses or "DEFAULT" in responses
        rec.row("problem-json", "problem-json-undeclared-status", method, path,
                f"the {answer.status} is declared by {method} {matches[0]} (the status, {answer.status // 100}XX or default)",
                answer, line, not declared, status=answer.status, template=matches[0], declared=responses)


def pointer_token(s):
    """A JSON Pointer reference token (RFC 6901 §3)."""
    return s.replace("~", "~0").replace("/", "~1")


def words(text):
    return re.sub(r"[^a-z0-9]+", " ", re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text).lower()).split()


def restates(text, *names):
    """Whether a summary only repeats one of the operation's names:
    ListItems, /items/{id} or GET /items, word for word."""
    return any(n and words(text) == words(n) for n in names)


# The JSON Schema keywords that say something of a value's form beyond its
# type (JSON Schema Validation §6), and OpenAPI's example.
FORM_KEYWORDS = {"enum", "const", "format", "pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
                 "minLength", "maxLength", "multipleOf", "example", "examples", "default", "contentMediaType"}
# The words of a query parameter's name that say it pages through a list
# (page_size, pageToken, starting_after): as a word, not a substring
# (account_slug does not count); and the names that page only when they are
# the whole name ($top, limit's "max"), not a word among others (a
# max_timestamp bounds a time window, it does not page).
PAGING_WORDS = {"page", "cursor", "offset", "limit", "marker", "continuation", "after", "before", "skip", "since",
                "token"}
PAGING_NAMES = {"top", "first", "last", "max", "count", "size", "start", "from", "next", "maxresults", "n"}


def pages_by(name):
    w = words(name)
    return bool(PAGING_WORDS & set(w)) or "".join(w) in PAGING_NAMES


def is_json_media(mt):
    t = mt.split(";")[0].strip().lower()
    return t == "application/json" or t.endswith("+json")


def document_readiness(rec, doc, spec, line):
    """What the OpenAPI document itself tells an agent of each operation,
    read against OpenAPI 3.1 (§4.8.10 Operation Object, §4.8.16 Responses
    Object, §4.8.12 Parameter Object) and RFC 9457: a name and a purpose, the
    errors it can answer and their media type, the form of each parameter,
    and how a list pages. A row per operation and check, whose "tool" is the
    operation and the JSON Pointer the finding would be placed at."""
    if not str(doc.get("openapi", "")).startswith("3"):
        return
    for template, item in sorted((doc.get("paths") or {}).items()):
        if not isinstance(item, dict):
            continue
        for method in sorted(m for m in item if m in HTTP_METHODS):
            op = item[method]
            if not isinstance(op, dict):
                continue
            key = f"{method.upper()} {template}"
            ptr = f"/paths/{pointer_token(template)}/{method}"
            op_id = str(op.get("operationId") or "").strip()
            purpose = any(str(op.get(k) or "").strip() and not restates(str(op[k]), op_id, template, key)
                          for k in ("summary", "description"))
            rec.row("openapi", "openapi-hal-operation-purpose", "GET", spec, f"{key} has an operationId and a summary that says what it is for",
                    {"operationId": op_id, "summary": op.get("summary", ""), "description": op.get("description", "")},
                    line, not op_id or not purpose, scope="site", tool=f"{key} {ptr}")

            responses = {str(k): v for k, v in (op.get("responses") or {}).items()}
            declares_4xx = any(k == "default" or (len(k) == 3 and k[0] == "4") for k in responses)
            rec.row("openapi", "openapi-hal-errors-undeclared", "GET", spec, f"{key} declares a 4xx, 4XX or default response",
                    {"responses": sorted(responses)}, line, bool(responses) and not declares_4xx,
                    scope="site", tool=f"{key} {ptr}/responses")

            if method not in ("head", "options"):
                errors = sorted(k for k in responses if k == "default" or (len(k) == 3 and k[0] in "45"))
                plain = [k for k in errors if not any(
                    mt.split(";")[0].strip().lower() in ("application/problem+json", "application/problem+xml")
                    for mt in ((responses[k] or {}).get("content") or {}))]
                rec.row("problem-json", "problem-json-errors-declared", "GET", spec,
                        f"{key} declares its error responses as application/problem+json",
                        {"errors": errors, "notProblem": plain}, line, bool(plain), scope="site", tool=key)

            for i, param in enumerate(op.get("parameters") or []):
                if not isinstance(param, dict) or "$ref" in param:
                    continue
                schema = param.get("schema") or {}
                loose = (schema.get("type") in ("string", "number", "integer") and not FORM_KEYWORDS & set(schema)
                         and not param.get("example") and not param.get("examples"))
                rec.row("openapi", "openapi-hal-input-unconstrained", "GET", spec,
                        f"{key}: {param.get('in')} parameter {param.get('name')} has a form (enum, format, pattern, bounds or example)",
                        {"schema": schema}, line, loose, scope="site", tool=f"{key} {ptr}/parameters/{i}")

            for mt, field, schema in body_fields(doc, op):
                at = f"{ptr}/requestBody/content/{pointer_token(mt)}/schema/properties/{pointer_token(field)}"
                rec.row("openapi", "openapi-hal-input-unconstrained", "GET", spec,
                        f"{key}: body field {field} has a type, and a form (enum, format, pattern, bounds or example)",
                        {"schema": schema}, line, field_guessed(schema), scope="site", tool=f"{key} {at}")

            if method == "get":
                array_at = next((code for code in sorted(responses) if len(code) == 3 and code[0] == "2" and any(
                    is_json_media(mt) and isinstance(media, dict) and (media.get("schema") or {}).get("type") == "array"
                    for mt, media in ((responses[code] or {}).get("content") or {}).items())), "")
                if array_at:
                    paged = any(isinstance(p, dict) and p.get("in") == "query" and pages_by(str(p.get("name", "")))
                                for p in op.get("parameters") or []) or any(
                        "link" in {h.lower() for h in ((responses[c] or {}).get("headers") or {})}
                        for c in responses if c.startswith("2"))
                    rec.row("openapi", "openapi-hal-pagination-undeclared", "GET", spec,
                            f"{key}'s array answer {array_at} declares a paging parameter or a Link header",
                            {"response": array_at}, line, not paged, scope="site",
                            tool=f"{key} {ptr}/responses/{array_at}")


def resolve(doc, schema):
    """A schema, its local $ref followed (#/components/schemas/Name)."""
    for _ in range(8):
        ref = schema.get("$ref") if isinstance(schema, dict) else None
        if not isinstance(ref, str) or not ref.startswith("#/"):
            break
        node = doc
        for token in ref[2:].split("/"):
            node = node.get(token.replace("~1", "/").replace("~0", "~")) if isinstance(node, dict) else None
        schema = node
    return schema if isinstance(schema, dict) else {}


def body_fields(doc, op):
    """The top-level fields of an operation's JSON request body: its media
    type, each property's name and schema."""
    content = (op.get("requestBody") or {}).get("content") or {}
    for mt in sorted(content):
        if not is_json_media(mt):
            continue
        schema = resolve(doc, (content[mt] or {}).get("schema") or {})
        for name, field in sorted((schema.get("properties") or {}).items()):
            yield mt, name, field if isinstance(field, dict) else {}
        return


def field_guessed(schema):
    """Whether a field leaves its value to guess (JSON Schema Validation
    §6): no type at all, or a string or number with no form, an array
    judged by its items. A composition or a reference says the rest."""
    for _ in range(4):
        if {"allOf", "oneOf", "anyOf", "$ref", "not"} & set(schema):
            return False
        kind = schema.get("type")
        if kind == "array":
            schema = schema.get("items") if isinstance(schema.get("items"), dict) else None
            if schema is None:
                return False
            continue
        if kind is None:
            return not (FORM_KEYWORDS & set(schema) or "properties" in schema)
        return kind in ("string", "number", "integer") and not FORM_KEYWORDS & set(schema)
    return False


def link_relations(value):
    """The relation types of a Link header (RFC 8288 §3): every rel value of
    every link, lower-cased."""
    rels = set()
    for m in re.finditer(r"<[^>]*>([^,<]*)", value):
        for param in m.group(1).split(";"):
            key, _, val = param.strip().partition("=")
            if key.strip().lower() == "rel":
                rels.update(val.strip().strip('"').lower().split())
    return rels


def service_desc(rec, start):
    """Whether the resource a client starts from links the server's OpenAPI
    document with rel="service-desc" (RFC 8631 §4.1), in a Link header or in
    its HAL _links, the two places a client looks."""
    answer, line = rec.ask("GET", start)
    links = (json_object(answer) or {}).get("_links")
    linked = "service-desc" in link_relations(answer.header("link")) or (
        isinstance(links, dict) and "service-desc" in links)
    rec.row("discovery", "discovery-service-desc-missing", "GET", start,
            'the start resource links the OpenAPI document with rel="service-desc"', answer, line, not linked,
            link=answer.header("link"))


def dedupe(rows):
    out, seen = [], set()
    for r in rows:
        key = json.dumps(r, sort_keys=True)
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out


# MCP ---------------------------------------------------------------------

def rpc_body(id_, method, params):
    body = {"jsonrpc": "2.0", "method": method, "params": params}
    if id_ is not None:
        body["id"] = id_
    return json.dumps(body, separators=(",", ":"))


def rpc_result(answer, id_):
    """The JSON-RPC message answering id_, from JSON or an SSE stream."""
    text = answer.body.decode("utf-8", "replace")
    candidates = []
    if answer.media_type() == "text/event-stream":
        for line in text.splitlines():
            if line.startswith("data:"):
                candidates.append(line[5:].strip())
    else:
        candidates.append(text)
    for c in candidates:
        try:
            msg = json.loads(c)
        except ValueError:
            continue
        if isinstance(msg, dict) and (msg.get("id") == id_ or id_ is None or "error" in msg):
            return msg
    return None


MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def initialize_params(version):
    return {"protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": "agentready-oracle", "version": "0.0.1"}}


def record_mcp(rec, path):
    # The modern probe of 2026-07-28: server/discover, no session.
    meta = {"io.modelcontextprotocol/protocolVersion": LATEST,
            "io.modelcontextprotocol/clientInfo": {"name": "agentready-oracle", "version": "0.0.1"},
            "io.modelcontextprotocol/clientCapabilities": {}}
    headers = dict(MCP_HEADERS, **{"Mcp-Protocol-Version": LATEST, "Mcp-Method": "server/discover"})
    body = rpc_body(1, "server/discover", {"_meta": meta})
    answer, line = rec.ask("POST", path, headers, body)
    msg = rpc_result(answer, 1) or {}
    versions = (msg.get("result") or {}).get("supportedVersions") or []
    modern = answer.status == 200 and LATEST in versions
    rec.row("mcp", "mcp-legacy-only", "POST", path, f"server/discover at {LATEST} is served", answer, line,
            not modern, scope="site", supportedVersions=versions, error=msg.get("error"))

    if modern:
        # A list method the server lacks, asked the modern way: 404 and -32601.
        for method in ("resources/list", "prompts/list"):
            h = dict(MCP_HEADERS, **{"Mcp-Protocol-Version": LATEST, "Mcp-Method": method})
            b = rpc_body(2, method, {"_meta": meta})
            a, l = rec.ask("POST", path, h, b)
            m = rpc_result(a, 2) or {}
            code = (m.get("error") or {}).get("code")
            lacks = code == -32601 or a.status == 404
            rec.row("mcp", "mcp-unknown-method", "POST", path, f"{method}, if unimplemented, gets 404 and -32601",
                    a, l, (a.status != 404 or code != -32601) if lacks else False, scope="site", rpcError=code)

    session = None
    for version in [LATEST] + LEGACY:
        body = rpc_body(1, "initialize", initialize_params(version))
        answer, line = rec.ask("POST", path, MCP_HEADERS, body)
        msg = rpc_result(answer, 1) or {}
        result = msg.get("result") or {}
        rec.row("mcp", "", "POST", path, f"initialize at {version}", answer, line, None, scope="site",
                negotiated=result.get("protocolVersion"), sessionId=bool(answer.header("mcp-session-id")),
                error=msg.get("error"))
        if version == LEGACY[0] and answer.status == 200:
            session = (answer.header("mcp-session-id"), result.get("protocolVersion") or version)

    body = rpc_body(1, "initialize", initialize_params(LEGACY[0]))
    headers = dict(MCP_HEADERS, Origin=FOREIGN_ORIGIN)
    answer, line = rec.ask("POST", path, headers, body)
    rec.row("mcp", "mcp-origin-validated", "POST", path, "initialize from a foreign Origin is refused with 403",
            answer, line, answer.status != 403, scope="site")

    if session:
        sid, version = session
        h = dict(MCP_HEADERS, **{"Mcp-Protocol-Version": version})
        if sid:
            h["Mcp-Session-Id"] = sid
        send(rec.base, "POST", path, h, rpc_body(None, "notifications/initialized", {}))
        answer, line = rec.ask("POST", path, h, rpc_body(2, "tools/list", {}))
        msg = rpc_result(answer, 2) or {}
        tools = (msg.get("result") or {}).get("tools") or []
        # The session id changes every run: the curl line names it as $SESSION.
        line = line.replace(sid, "$SESSION") if sid else line
        rec.row("mcp", "", "POST", path, "tools/list", answer, line, None, scope="site",
                tools=sorted(t.get("name", "") for t in tools))
        for t in tools:
            props = (t.get("inputSchema") or {}).get("properties") or {}
            undescribed = sorted(k for k, v in props.items() if not (isinstance(v, dict) and v.get("description")))
            # A missing description is a defect; a present one decides
            # nothing, since the check also weighs what a description says
            # (its smells), which a list of names cannot judge.
            rec.row("mcp", "mcp-tool-description", "POST", path, f"tool {t.get('name')!r} and its parameters are described",
                    {"description": t.get("description", ""), "undescribed": undescribed,
                     "annotations": t.get("annotations") or {}}, line,
                    True if not t.get("description") or undescribed else None, scope="site", tool=t.get("name"))
            schema = t.get("inputSchema")
            rec.row("mcp", "mcp-tool-input-schema", "POST", path, f"tool {t.get('name')!r} has an object inputSchema",
                    {"inputSchema.type": (schema or {}).get("type")}, line,
                    not isinstance(schema, dict) or schema.get("type") != "object", scope="site", tool=t.get("name"))
    answer, line = rec.ask("GET", path, {"Accept": "text/event-stream"}, stream=True)
    rec.row("mcp", "", "GET", path, "GET on the endpoint (status and headers)", answer, line, None, scope="site")


def manifest_rows(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if len(fields) == 5:
                yield fields


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--manifest", default=os.environ.get("MATRIX_MANIFEST", ""))
    p.add_argument("--out", default=os.path.join(HERE, "oracle"))
    p.add_argument("--only", action="append", default=[])
    p.add_argument("--check", action="store_true", help="compare with the records in --out instead of writing them")
    p.add_argument("--unsupported-method", default="",
                   help="also send this safe method (TRACE, PROPFIND, SEARCH or REPORT) to each resource")
    args = p.parse_args()
    if not args.manifest:
        p.error("no manifest: run under matrix.sh run, or pass --manifest")
    method = args.unsupported_method.upper()
    if method and method not in SAFE_METHODS:
        p.error(f"--unsupported-method {method}: only a safe method ({', '.join(sorted(SAFE_METHODS))})")
    os.makedirs(args.out, exist_ok=True)
    stale = False
    for name, kind, base, start, spec in manifest_rows(args.manifest):
        if args.only and name not in args.only:
            continue
        rec = Recorder(name, kind, base)
        try:
            if kind == "mcp":
                record_mcp(rec, start)
            else:
                record_app(rec, start, spec, method)
        except OSError as e:
            print(f"oracle: {name}: {e}", file=sys.stderr)
            return 3
        doc = {"server": name, "kind": kind, "start": start, "spec": None if spec == "-" else spec,
               "rows": rec.rows}
        text = json.dumps(doc, indent=1, sort_keys=True) + "\n"
        path = os.path.join(args.out, f"{name}.json")
        if args.check:
            try:
                with open(path, encoding="utf-8") as f:
                    same = f.read() == text
            except OSError:
                same = False
            if not same:
                print(f"oracle: {name} no longer does what {path} records; run oracle.py and review the diff",
                      file=sys.stderr)
                stale = True
            continue
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        defects = sorted({r["check"] for r in rec.rows if r["defect"]})
        print(f"{name}: {len(rec.rows)} rows; defects: {', '.join(defects) or 'none'}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
