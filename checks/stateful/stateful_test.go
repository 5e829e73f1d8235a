package stateful_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/stateful"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/spec"
)

const base = "http://api.test"

func doc(path, body string) *exchange.Exchange {
	return checkstest.Exchange(exchange.PurposeCrawl, "GET", base+path).Status(200).
		Header("Content-Type", "application/json").Body(body).Build()
}

func body(schema map[string]any) map[string]any {
	return map[string]any{"application/json": schema}
}

func object(props map[string]any) map[string]any {
	return map[string]any{"type": "object", "properties": props}
}

var str = map[string]any{"type": "string"}

// flow describes seed 003's primitives as an OpenAPI document would.
func flow() *spec.Document {
	patch := object(map[string]any{
		"items":        map[string]any{"type": "array", "items": object(map[string]any{"id": str, "quantity": map[string]any{"type": "integer"}})},
		"address_id":   str,
		"coupon_id":    str,
		"payment_type": str,
	})
	return &spec.Document{Operations: []*spec.Operation{
		{Method: "POST", PathTemplate: "/actions/{id}/advance", OperationID: "advanceAction", MCPTool: "advance_action",
			RequestBody: body(object(map[string]any{"version": map[string]any{"type": "integer"}, "patch": patch}))},
		{Method: "POST", PathTemplate: "/actions/{id}/confirm", OperationID: "confirm_action",
			RequestBody: body(object(map[string]any{"approval": str, "idempotency_key": str}))},
		{Method: "POST", PathTemplate: "/actions/{id}/recover", OperationID: "recover_action",
			Parameters: []spec.Parameter{{Name: "Idempotency-Key", In: "header", Required: true, Schema: str}}},
		{Method: "POST", PathTemplate: "/actions/{id}/verify", OperationID: "verify_action"},
	}}
}

// The seed's own responses, which follow every rule.
const (
	seedItems = `{"action_id":"checkout-123","entity":"Order","node":"ITEMS",
  "inputs":[{"field":"items[].quantity","node":"ITEMS","required":true},{"field":"address_id","node":"ADDRESS","required":true},
            {"field":"coupon_id","node":"COUPON","required":false,"depends_on":["items","address_id"]},{"field":"payment_type","node":"PAYMENT","required":true}],
  "allowed_patch":["items[].quantity","address_id","coupon_id","payment_type"],"requires_confirmation":false,
  "next_actions":[{"tool":"advance_action","description":"Fill in or change the order fields listed in allowed_patch"}],"version":3}`
	seedConfirm = `{"action_id":"checkout-123","node":"CONFIRM_ORDER","applied":["items","address_id","payment_type"],"missing":[],
  "requires_confirmation":true,"summary":{"amount":398},
  "next_actions":[{"tool":"advance_action","description":"Apply a coupon or change order details"},
                  {"tool":"confirm_action","description":"Submit the order and charge payment","requires_user_approval":true}],"version":4}`
	seedSubmitted = `{"action_id":"checkout-123","node":"PAYMENT_SUBMITTED","external_id":"payment-123",
  "next_actions":[{"tool":"verify_action","description":"Check that the payment actually went through"}]}`
	seedVerified = `{"status":"submitted","external_id":"payment-123","verification":{"status":"paid","amount":199},"next_actions":[]}`
	seedUnknown  = `{"status":"unknown","recoverable":true,"action_id":"checkout-123",
  "next_actions":[{"tool":"verify_action","description":"Check with the payment gateway first; do not resubmit"},
                  {"tool":"recover_action","description":"If verification shows no payment, retry with the original idempotency key"}]}`
	seedMissing = `{"node":"CONFIRM_ORDER","missing":["payment_type"],"allowed_patch":["payment_type"],"version":5,
  "next_actions":[{"tool":"advance_action","description":"Fill in the payment method"}]}`
	seedShipped = `{"entity":"Order","status":"SHIPPED","refund":{"eligible":false,"reason":"order_has_shipped"},"requires_approval":false,
  "next_actions":[{"tool":"start_action","args":{"capability":"return_refund"},"description":"Request a return and refund"},
                  {"tool":"start_action","args":{"capability":"exchange"},"description":"Request an exchange"}]}`
)

func seedDocs() []*exchange.Exchange {
	return []*exchange.Exchange{
		doc("/checkouts/1", seedItems), doc("/checkouts/2", seedConfirm), doc("/checkouts/3", seedSubmitted),
		doc("/checkouts/4", seedVerified), doc("/checkouts/5", seedUnknown), doc("/checkouts/6", seedMissing),
		doc("/orders/1", seedShipped),
	}
}

// passive are the family's checks that read the crawl alone; the active
// ones are tested in active_test.go.
func passive() []checks.Check {
	var out []checks.Check
	for _, c := range stateful.All() {
		if c.Meta().Needs == 0 {
			out = append(out, c)
		}
	}
	return out
}

func run(t *testing.T, doc *spec.Document, snap *mcp.Snapshot, xs ...*exchange.Exchange) ([]finding.Finding, map[string]string) {
	t.Helper()
	in := checkstest.Input(base+"/", nil, xs...)
	in.Spec, in.MCP = doc, snap
	var all []finding.Finding
	skips := map[string]string{}
	for _, c := range passive() {
		fs, skip := checkstest.Run(t, c, in)
		all = append(all, fs...)
		if skip != "" {
			skips[c.Meta().ID] = skip
		}
	}
	return all, skips
}

func TestSeedFlowFollowsEveryRule(t *testing.T) {
	for _, d := range []*spec.Document{nil, flow()} {
		got, skips := run(t, d, nil, seedDocs()...)
		if len(got) > 0 {
			t.Errorf("spec %v: the seed's own responses fired %v: %s", d != nil, checkstest.IDs(got), got[0].Message)
		}
		if d != nil && len(skips) > 0 {
			t.Errorf("with the document every rule applies, skipped: %v", skips)
		}
	}
}

func TestStatefulRules(t *testing.T) {
	tests := []struct {
		name    string
		docs    []*exchange.Exchange
		want    []string
		pointer string
	}{
		{"a document of the same kind without next_actions",
			[]*exchange.Exchange{doc("/checkouts/1", seedItems), doc("/checkouts/2", `{"node":"ADDRESS","version":3}`)},
			[]string{"stateful-next-actions-missing"}, ""},
		{"another kind without next_actions is not compared",
			[]*exchange.Exchange{doc("/checkouts/1", seedItems), doc("/customers/2", `{"name":"Ada"}`)}, nil, ""},
		{"an empty list while fields are missing",
			[]*exchange.Exchange{doc("/checkouts/1", `{"node":"ADDRESS","missing":["address_id"],"next_actions":[]}`)},
			[]string{"stateful-next-actions-missing"}, "/next_actions"},
		{"an empty list at a recoverable outcome",
			[]*exchange.Exchange{doc("/checkouts/1", `{"status":"failed","recoverable":true,"next_actions":[]}`)},
			[]string{"stateful-next-actions-missing"}, "/next_actions"},
		{"a charge without confirmation",
			[]*exchange.Exchange{doc("/checkouts/2", strings.Replace(seedConfirm, `"requires_confirmation":true`, `"requires_confirmation":false`, 1))},
			[]string{"stateful-confirmation-skipped"}, "/next_actions/1"},
		{"a charge described in so many words, not marked",
			[]*exchange.Exchange{doc("/orders/1", `{"status":"pending","next_actions":[{"operation":"payOrder","description":"Pay order"}]}`)},
			[]string{"stateful-confirmation-skipped"}, "/next_actions/0"},
		{"a charge confirmed on the entry",
			[]*exchange.Exchange{doc("/orders/1", `{"status":"pending","next_actions":[{"operation":"payOrder","description":"Pay order","requires_confirmation":true}]}`)},
			nil, ""},
		{"a deletion without confirmation",
			[]*exchange.Exchange{doc("/drafts/1", `{"status":"draft","next_actions":[{"tool":"discard","description":"Delete the draft"}]}`)},
			[]string{"stateful-confirmation-skipped"}, "/next_actions/0"},
		{"a payment only named by a verify step",
			[]*exchange.Exchange{doc("/checkouts/3", seedSubmitted)}, nil, ""},
		{"a submitted node with nothing to verify it",
			[]*exchange.Exchange{doc("/checkouts/3", `{"node":"PAYMENT_SUBMITTED","next_actions":[{"tool":"advance_action","description":"Change the order"}]}`)},
			[]string{"stateful-verify-missing"}, "/next_actions"},
		{"an unknown outcome finished early",
			[]*exchange.Exchange{doc("/checkouts/5", `{"status":"unknown","next_actions":[]}`)},
			[]string{"stateful-verify-missing"}, "/next_actions"},
		{"a missing field that may not be patched",
			[]*exchange.Exchange{doc("/checkouts/6", strings.Replace(seedMissing, `"allowed_patch":["payment_type"]`, `"allowed_patch":["coupon_id"]`, 1))},
			[]string{"stateful-patch-fields"}, "/missing/0"},
		{"an allowed field no input describes",
			[]*exchange.Exchange{doc("/checkouts/1", strings.Replace(seedItems, `"payment_type"],"requires`, `"payment_type","gift_wrap"],"requires`, 1))},
			[]string{"stateful-patch-fields"}, "/allowed_patch/4"},
		{"a dependency on nothing",
			[]*exchange.Exchange{doc("/checkouts/1", strings.Replace(seedItems, `"depends_on":["items","address_id"]`, `"depends_on":["items","shipping_zone"]`, 1))},
			[]string{"stateful-patch-fields"}, "/inputs/2/depends_on/1"},
		{"a charge without confirmation on an item of an envelope",
			[]*exchange.Exchange{doc("/orders", `{"items":[{"id":1,"status":"pending","next_actions":[{"operation":"payOrder","description":"Pay order"}]}],"next":null}`)},
			[]string{"stateful-confirmation-skipped"}, "/items/0/next_actions/0"},
		{"an embedded item of a kind whose other items carry next_actions",
			[]*exchange.Exchange{doc("/orders", `{"_embedded":{"orders":[{"_links":{"self":{"href":"/orders/7"}},"status":"pending","next_actions":[]},{"_links":{"self":{"href":"/orders/8"}},"status":"paid"}]}}`)},
			[]string{"stateful-next-actions-missing"}, "/_embedded/orders/1"},
		{"an embedded copy of a crawled resource is judged at its own page",
			[]*exchange.Exchange{doc("/orders/1", `{"status":"pending","next_actions":[{"operation":"payOrder","description":"Pay order","requires_confirmation":true}]}`),
				doc("/orders", `{"_embedded":{"orders":[{"_links":{"self":{"href":"/orders/1"}},"status":"pending","next_actions":[{"operation":"payOrder","description":"Pay order"}]}]}}`)},
			nil, ""},
		{"item summaries without next_actions beside item pages with them",
			[]*exchange.Exchange{doc("/orders/1", `{"status":"pending","next_actions":[]}`),
				doc("/orders", `{"_embedded":{"orders":[{"_links":{"self":{"href":"/orders/2"}},"status":"paid"}]},"items":[{"id":3}]}`)},
			nil, ""},
		{"a confirm step offered while validation fails",
			[]*exchange.Exchange{doc("/checkouts/2", strings.Replace(seedConfirm, `"missing":[]`, `"missing":[],"validation_errors":[{"field":"items[].quantity","message":"only 1 in stock"}]`, 1))},
			[]string{"stateful-confirm-while-invalid"}, "/next_actions/1"},
		{"only the fix offered while validation fails",
			[]*exchange.Exchange{doc("/checkouts/2", `{"node":"ITEMS","applied":["address_id"],"validation_errors":[{"field":"items[].quantity","message":"only 1 in stock"}],
  "next_actions":[{"tool":"advance_action","description":"Change the quantity"}]}`)}, nil, ""},
		{"a confirm step beside an empty validation_errors",
			[]*exchange.Exchange{doc("/checkouts/2", strings.Replace(seedConfirm, `"missing":[]`, `"missing":[],"validation_errors":[]`, 1))}, nil, ""},
		{"an approval step offered while a field fails, by object",
			[]*exchange.Exchange{doc("/checkouts/2", `{"node":"REVIEW","requires_confirmation":true,"validation_errors":{"address_id":"not deliverable"},
  "next_actions":[{"tool":"submit_order","description":"Place the order","requires_user_approval":true}]}`)},
			[]string{"stateful-confirm-while-invalid", "stateful-result-shape"}, "/next_actions/0"},
		{"a charge under another name offered while a field fails",
			[]*exchange.Exchange{doc("/orders/1", `{"status":"pending","requires_confirmation":true,"validation_errors":[{"field":"address_id","message":"not deliverable"}],
  "next_actions":[{"operation":"submitOrder","description":"Submit the order and charge payment"},{"operation":"editOrder","description":"Change the address"}]}`)},
			[]string{"stateful-confirm-while-invalid"}, "/next_actions/0"},
		{"an entry without a description",
			[]*exchange.Exchange{doc("/checkouts/1", strings.Replace(seedItems, `,"description":"Fill in or change the order fields listed in allowed_patch"`, ``, 1))},
			[]string{"stateful-next-action-undescribed"}, "/next_actions/0"},
		{"an entry with an empty description",
			[]*exchange.Exchange{doc("/checkouts/1", strings.Replace(seedItems, `"Fill in or change the order fields listed in allowed_patch"`, `"  "`, 1))},
			[]string{"stateful-next-action-undescribed"}, "/next_actions/0"},
		{"an entry with a title",
			[]*exchange.Exchange{doc("/checkouts/1", strings.Replace(seedItems, `"description":`, `"title":`, 1))}, nil, ""},
		{"applied as a string",
			[]*exchange.Exchange{doc("/checkouts/2", strings.Replace(seedConfirm, `"applied":["items","address_id","payment_type"]`, `"applied":"items,address_id,payment_type"`, 1))},
			[]string{"stateful-result-shape"}, "/applied"},
		{"applied with a number in it",
			[]*exchange.Exchange{doc("/checkouts/2", strings.Replace(seedConfirm, `"applied":["items","address_id","payment_type"]`, `"applied":["items",2]`, 1))},
			[]string{"stateful-result-shape"}, "/applied/1"},
		{"applied as an object of values, and null errors",
			[]*exchange.Exchange{doc("/checkouts/2", strings.Replace(seedConfirm, `"applied":["items","address_id","payment_type"]`, `"applied":{"address_id":"address-1"},"validation_errors":null`, 1))}, nil, ""},
		{"a validation error without its field",
			[]*exchange.Exchange{doc("/checkouts/1", `{"node":"ITEMS","validation_errors":[{"path":"address_id","reason":"not deliverable"},{"message":"only 1 in stock"}],
  "next_actions":[{"tool":"advance_action","description":"Fix the order"}]}`)},
			[]string{"stateful-result-shape"}, "/validation_errors/1"},
		{"validation errors as strings",
			[]*exchange.Exchange{doc("/checkouts/1", `{"node":"ITEMS","validation_errors":["only 1 in stock"],
  "next_actions":[{"tool":"advance_action","description":"Fix the order"}]}`)},
			[]string{"stateful-result-shape"}, "/validation_errors/0"},
		{"a role granted without confirmation",
			[]*exchange.Exchange{doc("/members/1", `{"status":"invited","next_actions":[{"tool":"grant_access","description":"Grant Ada the admin role"}]}`)},
			[]string{"stateful-confirmation-skipped"}, "/next_actions/0"},
		{"an export without confirmation",
			[]*exchange.Exchange{doc("/reports/1", `{"status":"ready","next_actions":[{"tool":"export_report","description":"Export the report to the partner's bucket"}]}`)},
			[]string{"stateful-confirmation-skipped"}, "/next_actions/0"},
		{"data sent outside, confirmed",
			[]*exchange.Exchange{doc("/files/1", `{"status":"ready","requires_confirmation":true,"next_actions":[{"tool":"send_file","description":"Send the file to an external address"}]}`)}, nil, ""},
		{"a role only looked at",
			[]*exchange.Exchange{doc("/members/1", `{"status":"active","next_actions":[{"tool":"get_roles","description":"List the roles Ada holds"},{"tool":"revoke_request","description":"Request that an admin revoke access"}]}`)},
			nil, ""},
		{"a patch without a version",
			[]*exchange.Exchange{doc("/checkouts/1", strings.Replace(seedItems, `,"version":3}`, `}`, 1))},
			[]string{"stateful-patch-version"}, "/allowed_patch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := run(t, nil, nil, tt.docs...)
			if ids := checkstest.IDs(got); !slices.Equal(ids, tt.want) {
				t.Fatalf("fired %v, want %v", ids, tt.want)
			}
			if len(got) > 0 && got[0].Evidence[0].JSONPointer != tt.pointer {
				t.Errorf("pointer %q, want %q", got[0].Evidence[0].JSONPointer, tt.pointer)
			}
		})
	}
}

func TestRulesThatReadTheCatalog(t *testing.T) {
	noKey := flow()
	noKey.Operations[1].RequestBody = body(object(map[string]any{"approval": str}))
	got, _ := run(t, noKey, nil, doc("/checkouts/2", seedConfirm))
	if ids := checkstest.IDs(got); !slices.Equal(ids, []string{"stateful-idempotency-key", "stateful-idempotency-key-declared"}) || got[0].Subject != "confirm_action" {
		t.Errorf("confirm without a key: fired %v", ids)
	}
	// A schema that does not list its members says nothing either way.
	opaque := flow()
	opaque.Operations[1].RequestBody = body(map[string]any{"type": "object"})
	if got, _ := run(t, opaque, nil, doc("/checkouts/2", seedConfirm)); len(got) > 0 {
		t.Errorf("an opaque body is not judged: %v", checkstest.IDs(got))
	}

	wrongPatch := strings.Replace(seedItems, `"address_id","coupon_id"`, `"address","coupon_id"`, 1)
	wrongPatch = strings.Replace(wrongPatch, `{"field":"address_id"`, `{"field":"address"`, 1)
	wrongPatch = strings.Replace(wrongPatch, `"depends_on":["items","address_id"]`, `"depends_on":["items","address"]`, 1)
	got, _ = run(t, flow(), nil, doc("/checkouts/1", wrongPatch))
	if ids := checkstest.IDs(got); !slices.Equal(ids, []string{"stateful-patch-fields"}) || len(got) != 3 {
		t.Errorf("address is no field of the patch schema: fired %d %v", len(got), ids)
	}
	if got, _ := run(t, nil, nil, doc("/checkouts/1", wrongPatch)); len(got) > 0 {
		t.Errorf("without the schema the lists agree with each other: %v", checkstest.IDs(got))
	}

	destructive, notIdempotent := true, false
	tool := mcp.Tool{Name: "close_account", Annotations: &mcp.Annotations{DestructiveHint: &destructive, IdempotentHint: &notIdempotent}}
	snap := &mcp.Snapshot{Listings: []mcp.Listing{{Tools: []mcp.Tool{tool, {Name: "archive"}}}}}
	acct := doc("/accounts/1", `{"status":"active","next_actions":[{"tool":"close_account","description":"Close the account"},{"tool":"archive","description":"Archive it"}]}`)
	got, _ = run(t, nil, snap, acct)
	if ids := checkstest.IDs(got); !slices.Equal(ids, []string{"stateful-confirmation-skipped"}) || got[0].Subject != "close_account" {
		t.Errorf("a declared destructive, non-idempotent tool: fired %v", ids)
	}
}

func TestSkipsWithoutNextActions(t *testing.T) {
	_, skips := run(t, flow(), nil, doc("/orders/1", `{"id":1,"status":"pending"}`))
	if _, judged := skips["stateful-idempotency-key-declared"]; judged || len(skips) != len(passive())-1 {
		t.Errorf("skips %v, want every rule but the one of the document alone", skips)
	}
	_, skips = run(t, nil, nil, doc("/checkouts/1", seedItems))
	if _, ok := skips["stateful-idempotency-key"]; !ok || len(skips) != 2 {
		t.Errorf("without a document or tools only the idempotency rules skip: %v", skips)
	}
}

// The document alone shows a confirm or recover operation without a key;
// the rule reads the operations' names, methods and inputs, and no flow.
func TestIdempotencyKeyDeclared(t *testing.T) {
	op := func(method, path, id string, mod func(*spec.Operation)) *spec.Document {
		o := &spec.Operation{Method: method, PathTemplate: path, OperationID: id,
			RequestBody: body(object(map[string]any{"approval": str}))}
		if mod != nil {
			mod(o)
		}
		return &spec.Document{Operations: []*spec.Operation{o}}
	}
	keyHeader := func(o *spec.Operation) {
		o.Parameters = []spec.Parameter{{Name: "idempotency-key", In: "header", Required: true, Schema: str}}
	}
	tests := []struct {
		name string
		doc  *spec.Document
		want bool
	}{
		{"confirm operation without a key", op("POST", "/actions/{id}/confirm", "confirm_action", nil), true},
		{"recover step named by its path", op("POST", "/payments/{id}/recovery", "", nil), true},
		{"retry step named by x-mcp-tool", op("PATCH", "/payments/{id}", "updatePayment", func(o *spec.Operation) { o.MCPTool = "retryPayment" }), true},
		{"no body and no header", op("POST", "/checkouts/{id}/confirmation", "confirmCheckout", func(o *spec.Operation) { o.RequestBody = nil }), true},
		{"a key header, any case", op("POST", "/actions/{id}/confirm", "confirm_action", keyHeader), false},
		{"a key member of the body", op("POST", "/actions/{id}/confirm", "confirm_action", func(o *spec.Operation) {
			o.RequestBody = body(object(map[string]any{"approval": str, "idempotencyKey": str}))
		}), false},
		{"a body that lists no members", op("POST", "/actions/{id}/confirm", "confirm_action", func(o *spec.Operation) {
			o.RequestBody = body(map[string]any{"type": "object"})
		}), false},
		{"PUT is idempotent already", op("PUT", "/actions/{id}/confirmation", "confirm_action", nil), false},
		{"a verify step", op("POST", "/actions/{id}/verify", "verify_action", nil), false},
		{"a read of a confirmation", op("GET", "/actions/{id}/confirmation", "getConfirmation", nil), false},
		{"a word that only contains confirm", op("POST", "/unconfirmed", "listUnconfirmed", nil), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := checkstest.Input(base+"/", nil)
			in.Spec = tt.doc
			fs, skip := checkstest.Run(t, stateful.IdempotencyKeyDeclared{}, in)
			if skip != "" {
				t.Fatalf("skipped: %s", skip)
			}
			if (len(fs) > 0) != tt.want {
				t.Fatalf("fired %d, want %v", len(fs), tt.want)
			}
			if len(fs) > 0 && (fs[0].Subject != tt.doc.Operations[0].Key() || fs[0].Evidence[0].URL != tt.doc.Operations[0].PathTemplate) {
				t.Errorf("subject %q, evidence %+v", fs[0].Subject, fs[0].Evidence[0])
			}
		})
	}
}

func TestMetaIsValid(t *testing.T) {
	if _, err := checks.NewRegistry(stateful.All()...); err != nil {
		t.Fatal(err)
	}
}
