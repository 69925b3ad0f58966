package sanitize

import "strings"

// --- Pass 1: keys, tokens and private keys recognised by their own shape.
//
// Every kind has a published prefix (ghp_, xoxb-, AKIA, ...) or a fixed
// structure (a JWT, a PEM block, a webhook URL). The rules below are ours,
// written after the vendors' documented formats; the public rule sets of the
// gitleaks and trufflehog secret scanners (config/gitleaks.toml,
// pkg/detectors) served as the list of kinds to cover. docs/sanitize.md
// lists every rule.

// class is a set of ASCII bytes a token body may hold.
type class uint8

const (
	alnum       class = iota // A-Z a-z 0-9
	tok                      // alnum, '-', '_' (base64url, RFC 4648 5)
	tokDot                   // tok and '.'
	tokTilde                 // tokDot and '~'
	hexDigit                 // 0-9 a-f A-F
	upperDigit               // A-Z 0-9
	lowerDigit               // a-z 0-9
	b64                      // alnum, '+', '/', '=' (base64, RFC 4648 4)
	b64any                   // b64 and tok: either alphabet
	alnumPct                 // alnum and '%' (a percent-encoded token)
	alnumDollar              // alnum and '$'
	urlRest                  // anything up to the end of a URL
)

func (c class) has(b byte) bool {
	switch c {
	case alnum:
		return isAlnum(b)
	case tok:
		return isTokChar(b)
	case tokDot:
		return isTokChar(b) || b == '.'
	case tokTilde:
		return isTokChar(b) || b == '.' || b == '~'
	case hexDigit:
		return b >= '0' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F'
	case upperDigit:
		return b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
	case lowerDigit:
		return b >= 'a' && b <= 'z' || b >= '0' && b <= '9'
	case b64:
		return isAlnum(b) || b == '+' || b == '/' || b == '='
	case b64any:
		return isTokChar(b) || b == '+' || b == '/' || b == '='
	case alnumPct:
		return isAlnum(b) || b == '%'
	case alnumDollar:
		return isAlnum(b) || b == '$'
	case urlRest:
		return b > ' ' && b < 0x7f && !isURLEnd(b)
	}
	return false
}

// isURLEnd ends a URL in running text.
func isURLEnd(b byte) bool {
	switch b {
	case '"', '\'', '`', '<', '>', '\\', ' ', ')', ']', '}', ',':
		return true
	}
	return false
}

// tokenRule is one kind of token: prefix, then a body of at least min
// characters of class body (exactly min, ending at a token boundary, when
// exact is set: a prefix that is also an everyday word, such as "key-" or
// "SK", needs the exact shape). keep keeps the prefix (a webhook's host and
// path) and redacts the rest; otherwise the whole token becomes [REDACTED].
// shape, when set, replaces the body test with a structure of its own.
type tokenRule struct {
	prefix string
	body   class
	min    int
	exact  bool
	keep   bool
	shape  shape
}

// shape is a token with a structure of its own, told by a function.
type shape uint8

const (
	plain shape = iota // prefix and body
	pem                // pemEnd
	putty              // puttyEnd
	jwt                // jwtEnd
	slack              // slackEnd
)

// tokenRules holds the rules by the first byte of their prefix; within a
// byte the first rule that matches wins, so a longer prefix comes before a
// shorter one it starts with. It is read-only.
var tokenRules = [256][]tokenRule{
	'1': {{prefix: "1//0", body: tok, min: 40}},                // Google OAuth 2.0 refresh token
	'4': {{prefix: "4b1d", body: alnum, min: 38, exact: true}}, // ClickHouse Cloud key secret
	'-': {{prefix: "-----BEGIN ", shape: pem}},                 // RFC 7468 private key blocks
	'A': {
		{prefix: "AAAAAAAAAAAAAAAAAAAA", body: alnumPct, min: 40}, // Twitter app bearer token
		{prefix: "AIza", body: tok, min: 30},                      // Google API key
		{prefix: "AKIA", body: upperDigit, min: 16, exact: true},  // AWS access key ids
		{prefix: "ASIA", body: upperDigit, min: 16, exact: true},
		{prefix: "ABIA", body: upperDigit, min: 16, exact: true},
		{prefix: "ACCA", body: upperDigit, min: 16, exact: true},
		{prefix: "A3T", body: upperDigit, min: 17, exact: true},
		{prefix: "AKCp", body: alnum, min: 60},                   // JFrog Artifactory API key
		{prefix: "AKID", body: alnum, min: 30},                   // Tencent Cloud SecretId
		{prefix: "AQVN", body: tok, min: 35},                     // Yandex Cloud API key
		{prefix: "ABSK", body: b64, min: 100},                    // Amazon Bedrock API key
		{prefix: "AGE-SECRET-KEY-1", body: upperDigit, min: 50},  // age
		{prefix: "ATATT3", body: b64any, min: 100},               // Atlassian API token
		{prefix: "ATCTT3", body: b64any, min: 100},               // Atlassian container token
		{prefix: "ATBB", body: tokDot, min: 28},                  // Bitbucket app password
		{prefix: "API-", body: upperDigit, min: 26, exact: true}, // Octopus Deploy
		{prefix: "A3-", body: tok, min: 30},                      // 1Password secret key
	},
	'C': {{prefix: "CLOJARS_", body: alnum, min: 50}, {prefix: "CCIPAT_", body: tok, min: 30}},
	'E': {
		{prefix: "EAAA", body: tok, min: 40},   // Square production access token
		{prefix: "EAAC", body: alnum, min: 80}, // Facebook access tokens
		{prefix: "EAAM", body: alnum, min: 80},
		{prefix: "EAAG", body: alnum, min: 80},
		{prefix: "EZAK", body: alnum, min: 50}, // EasyPost
		{prefix: "EZTK", body: alnum, min: 50},
	},
	'F': {{prefix: "FLWSECK_TEST-", body: tok, min: 10}, {prefix: "FLWSECK_TEST", body: alnum, min: 12}, {prefix: "FLWSECK-", body: tok, min: 30}},
	'G': {{prefix: "GOCSPX-", body: tok, min: 24}, {prefix: "GR1348941", body: tok, min: 20}},
	'H': {{prefix: "HRKU-AA", body: tok, min: 50}},
	'L': {{prefix: "LTAI", body: alnum, min: 20}},
	'N': {{prefix: "NRAK-", body: upperDigit, min: 27}, {prefix: "NRII-", body: tok, min: 32}, {prefix: "NRJS-", body: hexDigit, min: 19}},
	'P': {{prefix: "PMAK-", body: tok, min: 50}, {prefix: "PuTTY-User-Key-File-", shape: putty}},
	'S': {{prefix: "SG.", body: tokDot, min: 60}, {prefix: "SK", body: hexDigit, min: 32, exact: true}},
	'Y': {{prefix: "YC", body: tok, min: 38, exact: true}},
	'a': {
		{prefix: "api_org_", body: alnum, min: 30},            // Hugging Face organization token
		{prefix: "access_token$", body: alnumDollar, min: 40}, // Braintree
		{prefix: "access-production-", body: tok, min: 36},    // Plaid
		{prefix: "access-development-", body: tok, min: 36},
		{prefix: "access-sandbox-", body: tok, min: 36},
		{prefix: "api.telegram.org/bot", body: urlRest, min: 20, keep: true},
	},
	'b': {{prefix: "bedrock-api-key-", body: b64, min: 100}},
	'c': {{prefix: "cmVmd", body: alnum, min: 50}, {prefix: "csk-", body: alnum, min: 40}},
	'd': {
		{prefix: "dapi", body: hexDigit, min: 32},
		{prefix: "dop_v1_", body: hexDigit, min: 64}, // DigitalOcean
		{prefix: "doo_v1_", body: hexDigit, min: 64},
		{prefix: "dor_v1_", body: hexDigit, min: 64},
		{prefix: "dp.", body: tokDot, min: 40},    // Doppler dp.pt. dp.st. dp.ct. dp.sa. dp.scim. dp.audit.
		{prefix: "dckr_pat_", body: tok, min: 27}, // Docker Hub
		{prefix: "dckr_oat_", body: tok, min: 27},
		{prefix: "dt0c01.", body: tokDot, min: 80}, // Dynatrace
		{prefix: "duffel_live_", body: tok, min: 40},
		{prefix: "duffel_test_", body: tok, min: 40},
		{prefix: "discord.com/api/webhooks/", body: urlRest, min: 20, keep: true},
		{prefix: "discordapp.com/api/webhooks/", body: urlRest, min: 20, keep: true},
	},
	'e': {{prefix: "eyJrIjoi", body: b64, min: 60}, {prefix: "eyJ", shape: jwt}},
	'f': {
		{prefix: "figd_", body: tok, min: 40}, // Figma
		{prefix: "figp_", body: tok, min: 40},
		{prefix: "fio-u-", body: tok, min: 60}, // Frame.io
		{prefix: "fo1_", body: tok, min: 40},   // Fly.io
		{prefix: "fm1a_", body: b64any, min: 100},
		{prefix: "fm1r_", body: b64any, min: 100},
		{prefix: "fm2_", body: b64any, min: 100},
		{prefix: "fw_", body: alnum, min: 20}, // Fireworks AI
	},
	'g': {
		{prefix: "ghp_", body: alnum, min: 30}, // GitHub
		{prefix: "gho_", body: alnum, min: 30},
		{prefix: "ghu_", body: alnum, min: 30},
		{prefix: "ghs_", body: alnum, min: 30},
		{prefix: "ghr_", body: alnum, min: 30},
		{prefix: "github_pat_", body: tok, min: 20},
		{prefix: "glpat-", body: tokDot, min: 20}, // GitLab
		{prefix: "gldt-", body: tok, min: 20},
		{prefix: "glrt-", body: tok, min: 20},
		{prefix: "glptt-", body: tok, min: 20},
		{prefix: "glcbt-", body: tok, min: 20},
		{prefix: "glft-", body: tok, min: 20},
		{prefix: "glimt-", body: tok, min: 20},
		{prefix: "glagent-", body: tok, min: 20},
		{prefix: "gloas-", body: tok, min: 20},
		{prefix: "glsoat-", body: tok, min: 20},
		{prefix: "glffct-", body: tok, min: 20},
		{prefix: "glc_", body: b64any, min: 32}, // Grafana
		{prefix: "glsa_", body: tok, min: 40},
		{prefix: "gsk_", body: alnum, min: 40}, // Groq
	},
	'h': {
		{prefix: "hf_", body: alnum, min: 30}, // Hugging Face
		{prefix: "hvs.", body: tok, min: 90},  // HashiCorp Vault
		{prefix: "hvb.", body: tok, min: 90},
		{prefix: "hooks.slack.com/", body: urlRest, min: 20, keep: true},
		{prefix: "hooks.zapier.com/hooks/catch/", body: urlRest, min: 8, keep: true},
	},
	'i': {{prefix: "ico-", body: alnum, min: 32}},                 // Infracost
	'k': {{prefix: "key-", body: hexDigit, min: 32, exact: true}}, // Mailgun
	'l': {
		{prefix: "lin_api_", body: alnum, min: 40}, // Linear
		{prefix: "lin_oauth_", body: hexDigit, min: 64},
		{prefix: "lsv2_pt_", body: tok, min: 40}, // LangSmith
		{prefix: "lsv2_sk_", body: tok, min: 40},
	},
	'n': {{prefix: "npm_", body: alnum, min: 36}, {prefix: "nvapi-", body: tok, min: 60}, {prefix: "ntn_", body: alnum, min: 40}},
	'o': {
		{prefix: "oy2", body: lowerDigit, min: 43, exact: true}, // NuGet
		{prefix: "ops_eyJ", body: b64, min: 200},                // 1Password service account
		{prefix: "outlook.office.com/webhook/", body: urlRest, min: 20, keep: true},
	},
	'p': {
		{prefix: "pplx-", body: alnum, min: 40}, // Perplexity
		{prefix: "pcsk_", body: tok, min: 60},   // Pinecone
		{prefix: "pscale_tkn_", body: tokDot, min: 32},
		{prefix: "pscale_oauth_", body: tokDot, min: 32},
		{prefix: "pscale_pw_", body: tokDot, min: 32},
		{prefix: "pypi-AgEIcHlwaS5vcmc", body: tok, min: 50},
		{prefix: "pul-", body: hexDigit, min: 40}, // Pulumi
		{prefix: "pnu_", body: alnum, min: 36},    // Prefect
		{prefix: "p8e-", body: alnum, min: 32},    // Adobe
		{prefix: "phx_", body: tok, min: 40},      // PostHog
		{prefix: "pk_", body: tok, min: 40},       // ClickUp
		{prefix: "ptr_", body: tok, min: 40},      // Portainer
		{prefix: "pat", body: tokDot, min: 60},    // Airtable, Harness
	},
	'r': {
		{prefix: "rk_", body: tok, min: 20}, // Stripe restricted keys
		{prefix: "r8_", body: tok, min: 37}, // Replicate
		{prefix: "rnd_", body: alnum, min: 32},
		{prefix: "rdme_", body: alnum, min: 60},
		{prefix: "rubygems_", body: hexDigit, min: 48},
		{prefix: "rzp_live_", body: alnum, min: 14},
		{prefix: "rzp_test_", body: alnum, min: 14},
	},
	's': {
		{prefix: "sk-", body: tok, min: 20},    // OpenAI, Anthropic, OpenRouter, DeepSeek, Langfuse, ...
		{prefix: "sk_", body: tok, min: 24},    // Stripe, Paystack, ElevenLabs
		{prefix: "sk.", body: tokDot, min: 60}, // Mapbox
		{prefix: "sl.", body: tok, min: 100},   // Dropbox
		{prefix: "sq0atp-", body: tok, min: 22},
		{prefix: "sq0csp-", body: tok, min: 22},
		{prefix: "sgp_", body: tok, min: 40},
		{prefix: "slk_", body: hexDigit, min: 64},
		{prefix: "shpat_", body: hexDigit, min: 32},
		{prefix: "shpca_", body: hexDigit, min: 32},
		{prefix: "shppa_", body: hexDigit, min: 32},
		{prefix: "shpss_", body: hexDigit, min: 32},
		{prefix: "shippo_live_", body: hexDigit, min: 40},
		{prefix: "shippo_test_", body: hexDigit, min: 40},
		{prefix: "sntrys_", body: b64, min: 100},
		{prefix: "sntryu_", body: hexDigit, min: 64},
		{prefix: "squ_", body: hexDigit, min: 40},
		{prefix: "sqp_", body: hexDigit, min: 40},
		{prefix: "sqa_", body: hexDigit, min: 40},
		{prefix: "sbp_", body: lowerDigit, min: 40},
		{prefix: "sb_secret_", body: tok, min: 30},
		{prefix: "secret_", body: alnum, min: 43, exact: true}, // Notion (legacy)
		{prefix: "sha256~", body: tok, min: 43},                // OpenShift
		{prefix: "sat.", body: tokDot, min: 60},                // Harness
		{prefix: "s.", body: alnum, min: 24, exact: true},      // HashiCorp Vault (legacy)
	},
	't': {
		{prefix: "tvly-", body: tok, min: 30},
		{prefix: "tskey-", body: tok, min: 30},
		{prefix: "tk-us-", body: tok, min: 48},
		{prefix: "tfp_", body: tokDot, min: 50},
		{prefix: "t1.", body: tokDot, min: 100},
		{prefix: "tines.com/webhook/", body: urlRest, min: 32, keep: true},
	},
	'y': {{prefix: "ya29.", body: tok, min: 30}},  // Google OAuth 2.0 access token
	'v': {{prefix: "v1.0-", body: tok, min: 150}}, // Cloudflare Origin CA key
	'w': {
		{prefix: "whsec_", body: alnum, min: 32}, // Stripe webhook secret
		{prefix: "webhook.office.com/webhookb2/", body: urlRest, min: 20, keep: true},
	},
	'x': {
		{prefix: "xoxe.", body: tokDot, min: 100}, // Slack configuration tokens
		{prefix: "xox", shape: slack},
		{prefix: "xapp-", body: tok, min: 50},
		{prefix: "xai-", body: tok, min: 60},
		{prefix: "xkeysib-", body: tok, min: 60}, // Brevo
		{prefix: "xsmtpsib-", body: tok, min: 60},
	},
}

// scan is the state of one scan of s for tokens: what a scan learns once
// and every later position reuses, so that a text of n bytes costs O(n)
// whatever it holds.
type scan struct {
	s string
	// gateFrom, gateEnd: the last gate run (see gate); gateBreak: it holds a
	// line break (a token may continue across it), when breakKnown.
	gateFrom, gateEnd     int
	gateBreak, breakKnown bool
	// pemEndAt, mac, nl and esc find the next "-----END ", "Private-MAC: ",
	// line break and JSON-escaped line break.
	pemEndAt, mac, nl, esc finder
}

func newScan(s string) scan { return scan{s: s} }

// finder finds the next occurrence of a needle, reusing its last answer:
// between the start of its last search and the answer there is none, so a
// later search from inside that range has the same answer. Its zero value
// has no answer yet.
type finder struct {
	from, at int
	known    bool
}

// next returns the index of the first needle in s at or after from, or -1.
func (f *finder) next(s string, from int, needle string) int {
	if f.known && from >= f.from && (f.at < 0 || from <= f.at) {
		return f.at
	}
	at := strings.Index(s[from:], needle)
	if at >= 0 {
		at += from
	}
	f.from, f.at, f.known = from, at, true
	return at
}

// maxBlockBytes is the longest private key block or key file recognised
// whole, in bytes: an RSA 16384-bit key in PEM is about 13 KB.
const maxBlockBytes = 64 << 10

// minTokenChars is the fewest characters any rule matches (prefix and body),
// and minInfixChars the fewest any shape of infixEnd but a Telegram token
// does: the gate skips shorter runs without trying them.
const (
	minTokenChars = 15
	minInfixChars = 30
)

// minLowerTokenChars is the fewest characters a token made of nothing but
// lower-case letters and '_' has (rk_, fw_, rzp_live_ and their bodies):
// a shorter identifier (retry_after_seconds) is not looked into.
// TestTokenRules_lowerRuns keeps it true of the table.
const minLowerTokenChars = 23

// gate returns the end of the run of characters at i that no token can
// span (white space other than a line break, quotes, angle brackets): a
// token cannot start at i when the run is shorter than minTokenChars. Every
// position of one run shares the run's end, computed once.
func (sc *scan) gate(i int) int {
	if i < sc.gateFrom || i >= sc.gateEnd {
		j := i
		for j < len(sc.s) && isGateChar(sc.s[j]) {
			j++
		}
		sc.gateFrom, sc.gateEnd = i, j
	}
	return sc.gateEnd
}

func isGateChar(c byte) bool {
	if c >= 0x40 {
		return c != '`'
	}
	return notGate>>c&1 == 0
}

// notGate has bit c set for each byte c below 0x40 that ends a gate run:
// space, tab, '"', '\”, '<' and '>'.
const notGate = 1<<' ' | 1<<'\t' | 1<<'"' | 1<<'\'' | 1<<'<' | 1<<'>'

// hasBreak reports whether the current gate run holds a line break (a real
// one or a JSON escape).
func (sc *scan) hasBreak() bool {
	if !sc.breakKnown {
		i, j := sc.gateFrom, sc.gateEnd
		nl, esc := sc.nl.next(sc.s, i, "\n"), sc.esc.next(sc.s, i, `\n`)
		sc.gateBreak, sc.breakKnown = nl >= 0 && nl < j || esc >= 0 && esc < j, true
	}
	return sc.gateBreak
}

// tokenEnd returns the end of the key, token or private key that starts at
// i, or -1. i must be at a token boundary (see boundary), except for a PEM
// block, which may follow anything.
func (sc *scan) tokenEnd(i int) int {
	end, _ := sc.tokenMatch(i)
	return end
}

// tokenMatch is tokenEnd with the start of the part to redact: i, or the end
// of the prefix for a rule that keeps it.
func (sc *scan) tokenMatch(i int) (end, from int) {
	end, from, _ = sc.ruleMatch(i)
	return end, from
}

// ruleMatch is tokenMatch with the rule that matched (nil for a shape of
// infixEnd).
func (sc *scan) ruleMatch(i int) (end, from int, rule *tokenRule) {
	s := sc.s
	gate := len(s) - i // a PEM label holds spaces: no gate
	if s[i] != '-' {
		if gate = sc.gate(i) - i; gate < minTokenChars {
			return -1, i, nil
		}
	}
	rest := s[i:]
	rules := tokenRules[s[i]]
	for k := range rules {
		r := &rules[k]
		// Every prefix has two bytes or more; most misses differ at the second.
		if len(rest) < len(r.prefix) || rest[1] != r.prefix[1] || rest[:len(r.prefix)] != r.prefix {
			continue
		}
		if r.shape != plain {
			if e := sc.shapeEnd(r.shape, i); e > i {
				return e, i, r
			}
			continue
		}
		from := i + len(r.prefix)
		end, n := bodyEnd(s, from, r.body, r.min)
		switch {
		case n < r.min:
			continue
		case r.exact && (n != r.min || end < len(s) && isAlnum(s[end])):
			continue
		case r.keep:
			return end, from, r
		}
		return end, i, r
	}
	if gate >= minInfixChars || s[i] >= '0' && s[i] <= '9' { // a Telegram token's digits end at ':'
		if e := infixEnd(s, i, sc.hasBreak()); e > i {
			return e, i, nil
		}
	}
	return -1, i, nil
}

// shapeEnd returns the end of the token of shape k at i, or -1.
func (sc *scan) shapeEnd(k shape, i int) int {
	switch k {
	case pem:
		return sc.pemEnd(i)
	case putty:
		return sc.puttyEnd(i)
	case jwt:
		return jwtEnd(sc.s, i)
	case slack:
		return slackEnd(sc.s, i)
	}
	return -1
}

// boundary reports whether a token may start at i: at the start of s or
// after a byte that is not a token character, or after a JSON escape (\n,
// \t, \r) in text that holds escaped JSON.
func boundary(s string, i int) bool {
	if i == 0 || !isTokChar(s[i-1]) {
		return true
	}
	return i >= 2 && s[i-2] == '\\' && (s[i-1] == 'n' || s[i-1] == 't' || s[i-1] == 'r')
}

// lineBreak returns the length of the line break at i: "\n", "\r\n", or
// the JSON escapes `\n` and `\r\n`; 0 when there is none.
func lineBreak(s string, i int) int {
	switch {
	case i < len(s) && s[i] == '\n':
		return 1
	case strings.HasPrefix(s[i:], "\r\n"), strings.HasPrefix(s[i:], `\n`):
		return 2
	case strings.HasPrefix(s[i:], `\r\n`):
		return 4
	}
	return 0
}

// bodyEnd returns the end of the body of class c that starts at from and its
// length in body characters. A body continues across a line break (a long
// key wrapped by a terminal or a log) when it is still shorter than min, or
// when the next line starts with a fragment that looks random (randomLike).
func bodyEnd(s string, from int, c class, min int) (end, n int) {
	end = span(s, from, c.has)
	n = end - from
	for n > 0 {
		brk := lineBreak(s, end)
		if brk == 0 {
			break
		}
		next := end + brk
		e := span(s, next, c.has)
		if e == next || n >= min && !randomLike(s[next:e]) {
			break
		}
		n += e - next
		end = e
	}
	return end, n
}

// randomLike reports whether t looks like a fragment of a random key rather
// than a word: at least 8 characters with both letters and digits, or at
// least 12 letters whose case changes on a third of them (random base62
// does, CamelCase does not).
func randomLike(t string) bool {
	if len(t) < 8 {
		return false
	}
	digits, letters, switches := 0, 0, 0
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letters++
			if i > 0 && isLetter(t[i-1]) && (c >= 'a') != (t[i-1] >= 'a') {
				switches++
			}
		}
	}
	return digits > 0 && letters > 0 || len(t) >= 12 && switches*3 >= len(t)
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// slackEnd: Slack tokens xoxb-, xoxp-, xoxa-, xoxr-, xoxs-, xoxo-, xoxe- and
// a body of at least 10 characters.
//
// See https://api.slack.com/authentication/token-types.
func slackEnd(s string, i int) int {
	if i+5 > len(s) || strings.IndexByte("abeoprs", s[i+3]) < 0 || s[i+4] != '-' {
		return -1
	}
	end, n := bodyEnd(s, i+5, tok, 10)
	if n < 10 {
		return -1
	}
	return end
}

// jwtEnd returns the end of a JSON Web Token (three base64url segments, the
// first starting with eyJ, the signature possibly empty; RFC 7519, 3) or of
// a JWE in compact form (five segments; RFC 7516, 3.1) at i, or -1.
func jwtEnd(s string, i int) int {
	a, n := bodyEnd(s, i, tok, 10)
	if n < 10 || a >= len(s) || s[a] != '.' {
		return -1
	}
	b, n := bodyEnd(s, a+1, tok, 4)
	if n < 4 || b >= len(s) || s[b] != '.' {
		return -1
	}
	end, _ := bodyEnd(s, b+1, tok, 0)
	for k := 0; k < 2 && end < len(s) && s[end] == '.'; k++ { // JWE: two more segments
		e, n := bodyEnd(s, end+1, tok, 0)
		if n == 0 {
			break
		}
		end = e
	}
	return end
}

// pemEnd returns the end of a private key block at i: "-----BEGIN <label>
// PRIVATE KEY-----" (or "PRIVATE KEY BLOCK", PGP) through its "-----END
// ...-----" line, or, when the END line is missing (a cut text), through
// the last line of base64. Lines may be separated by real line breaks or by
// JSON escapes (a service-account key file read as text).
//
// See RFC 7468, 10-11, and RFC 4880, 6.2.
func (sc *scan) pemEnd(i int) int {
	s := sc.s
	head := s[i+len("-----BEGIN "):]
	close := strings.Index(head[:min(len(head), 80)], "-----")
	if close < 0 || !strings.HasSuffix(head[:close], "PRIVATE KEY") && !strings.HasSuffix(head[:close], "PRIVATE KEY BLOCK") {
		return -1
	}
	from := i + len("-----BEGIN ") + close + 5
	if e := sc.pemEndAt.next(s, from, "-----END "); e >= 0 && e-from <= maxBlockBytes {
		end := e + len("-----END ")
		if c := strings.Index(s[end:min(len(s), end+80)], "-----"); c >= 0 {
			return end + c + 5
		}
		return end
	}
	return span(s, from, isPEMBody)
}

// isPEMBody is a byte of a PEM body without its END line: base64, white
// space, JSON escapes, and the "Name: value" header lines of RFC 1421.
func isPEMBody(c byte) bool {
	return isAlnum(c) || strings.IndexByte("+/=\\ \t\r\n:,-", c) >= 0
}

// puttyEnd returns the end of a PuTTY private key file at i: everything
// through the Private-MAC line (the private lines come before it).
//
// See https://the.earth.li/~sgtatham/putty/0.78/htmldoc/AppendixC.html.
func (sc *scan) puttyEnd(i int) int {
	s := sc.s
	m := sc.mac.next(s, i, "Private-MAC: ")
	if m < 0 || m-i > maxBlockBytes {
		return span(s, i, isPEMBody) // no MAC line after it: a cut file
	}
	return span(s, m+len("Private-MAC: "), func(c byte) bool { return c != '\n' && c != '\\' && c != '"' })
}

// infixEnd recognises the tokens without a fixed prefix by their inner
// structure, at a token boundary i: an Azure AD client secret (3
// characters, a digit, "Q~", 31-34 more), a Mailchimp key (32 hex, "-us",
// digits), a Mailgun signing key (32-8-8 hex), a MaxMind license key
// (6_29_mmk), a Telegram bot token (8-10 digits, ":A", 34), a Terraform
// Cloud token (14 ".atlasv1." 60+) and a Discord bot token (three dotted
// base64url segments of 24-26, 6 and 27+ characters starting with M, N or
// O). It returns -1 for anything else.
func infixEnd(s string, i int, breaks bool) int {
	if e := infixShape(s, i); e > i {
		return e
	}
	if !breaks {
		return -1
	}
	// The run holds a line break: tell the shape on the text with the
	// breaks removed (a copy, made only here) and map the end back.
	if run := spanMax(s, i, isTokTilde, 96); run-i >= 96 || lineBreak(s, run) == 0 {
		return -1
	}
	j, pos := joinLines(s, i, 512)
	if e := infixShape(j, 0); e > 0 {
		return pos[e]
	}
	return -1
}

func isTokTilde(c byte) bool { return isTokChar(c) || c == '.' || c == '~' }

// joinLines returns up to n bytes of s from i, up to the first space, with
// the line breaks removed that are followed by a fragment that looks random
// (randomLike), and for each of its bytes (and its end) the offset in s it
// came from.
func joinLines(s string, i, n int) (string, []int) {
	b := make([]byte, 0, 128)
	pos := make([]int, 0, 129)
	for i < len(s) && len(b) < n && s[i] != ' ' {
		if brk := lineBreak(s, i); brk > 0 {
			if !randomLike(s[i+brk : span(s, i+brk, tokTilde.has)]) {
				break
			}
			i += brk
			continue
		}
		pos = append(pos, i)
		b = append(b, s[i])
		i++
	}
	return string(b), append(pos, i)
}

func infixShape(s string, i int) int {
	// Each shape is told by a few bytes at fixed offsets before any run is
	// measured, so a text of short dotted words costs a few comparisons at
	// each, not a span.
	at := func(k int) byte {
		if i+k < len(s) {
			return s[i+k]
		}
		return 0
	}
	c := s[i]
	if isDigit(at(3)) && at(4) == 'Q' && at(5) == '~' { // Azure AD client secret
		if run := spanMax(s, i, isTokTilde, 42); run-i >= 38 && run-i <= 41 {
			return run
		}
	}
	if isHexDigit(c) && at(32) == '-' && isHexRun(s[i:i+32]) {
		if strings.HasPrefix(s[i+32:], "-us") && isDigit(at(35)) { // Mailchimp
			return span(s, i+35, isTokChar)
		}
		if at(41) == '-' && spanMax(s, i, isTokTilde, 51)-i == 50 && isHexRun(s[i+33:i+41]) && isHexRun(s[i+42:i+50]) { // Mailgun signing key
			return i + 50
		}
	}
	if at(6) == '_' && at(36) == '_' && spanMax(s, i, isTokTilde, 41)-i == 40 && strings.HasPrefix(s[i+36:], "_mmk") { // MaxMind license key
		return i + 40
	}
	if isDigit(c) { // Telegram bot token
		d := spanMax(s, i, isDigit, 11)
		if d-i >= 8 && d-i <= 10 && strings.HasPrefix(s[d:], ":A") {
			if e, n := bodyEnd(s, d+2, tok, 30); n >= 30 {
				return e
			}
		}
	}
	if at(14) == '.' && strings.HasPrefix(s[i+14:], ".atlasv1.") { // Terraform Cloud token
		if run := span(s, i, isTokTilde); run-i >= 80 {
			return run
		}
	}
	if (c == 'M' || c == 'N' || c == 'O') && (at(24) == '.' || at(25) == '.' || at(26) == '.') { // Discord bot token
		a := spanMax(s, i, isTokChar, 27)
		if a-i >= 24 && a-i <= 26 && a < len(s) && s[a] == '.' {
			b := span(s, a+1, isTokChar)
			if b-a-1 == 6 && b < len(s) && s[b] == '.' && span(s, b+1, isTokChar)-b-1 >= 27 {
				return span(s, b+1, isTokChar)
			}
		}
	}
	return -1
}

func isDigit(c byte) bool    { return c >= '0' && c <= '9' }
func isHexDigit(c byte) bool { return hexDigit.has(c) }

// spanMax is span that looks at most n bytes.
func spanMax(s string, i int, ok func(byte) bool, n int) int {
	end := min(len(s), i+n)
	j := i
	for j < end && ok(s[j]) {
		j++
	}
	return j
}

func isHexRun(t string) bool {
	for i := 0; i < len(t); i++ {
		if !hexDigit.has(t[i]) {
			return false
		}
	}
	return true
}

// next returns the first token at or after from: where it starts, where
// the part to redact starts (after a prefix a rule keeps) and where it
// ends; ok is false when there is none. Only runs of gate characters long
// enough to hold a token are looked into, so prose costs about one
// comparison a byte.
func (sc *scan) next(from int) (start, redactFrom, end int, ok bool) {
	s := sc.s
	for i := from; i < len(s); {
		if !isGateChar(s[i]) {
			i++
			continue
		}
		// The run's end is known when i is inside the last run (a scan
		// that resumes after a token): finding it again would cost O(n)
		// per token.
		j := sc.gateEnd
		if i < sc.gateFrom || i >= j {
			for j = i; j < len(s) && isGateChar(s[j]); j++ {
			}
		}
		if j-i >= 10 { // shorter runs hold no token (see inRun)
			if start, redactFrom, end, ok = sc.inRun(i, j); ok {
				return
			}
		}
		i = j
	}
	return 0, 0, 0, false
}

// tokenIn reports whether a token starts in the gate run s[i:j].
func (sc *scan) tokenIn(i, j int) bool {
	_, _, _, ok := sc.inRun(i, j)
	return ok
}

// inRun returns the first token that starts in the gate run s[i:j] (it may
// end after j: a PEM block), as next does.
func (sc *scan) inRun(i, j int) (start, redactFrom, end int, ok bool) {
	s := sc.s
	// A PEM label holds spaces: its first run may be short.
	if j-i < minTokenChars && !(j < len(s) && j-i >= 10 && strings.HasSuffix(s[i:j], "-----BEGIN")) {
		return 0, 0, 0, false
	}
	sc.gateFrom, sc.gateEnd = i, j
	sc.breakKnown = false
	for k := i; k < j; k++ {
		c := s[k]
		switch {
		case c == '-':
			if !strings.HasPrefix(s[k:], "-----BEGIN ") {
				continue
			}
		case !isAlnum(c):
			continue
		case !boundary(s, k):
			k = span(s, k, isAlnum) - 1 // no token starts inside a word
			continue
		}
		if e, f := sc.tokenMatch(k); e > k {
			return k, f, e, true
		}
		// No token starts inside the rest of the word either (but one may
		// start after the letter of a JSON escape, \nsk-...).
		if isAlnum(c) && !escapeLetter(s, k) {
			k = span(s, k, isAlnum) - 1
		}
	}
	return 0, 0, 0, false
}

// redactTokens replaces every token next finds.
func redactTokens(s string) string {
	e := editor{src: s}
	sc := newScan(s)
	for from := 0; ; {
		_, f, end, ok := sc.next(from)
		if !ok {
			return e.done()
		}
		e.replace(max(f, e.last), end, Redacted)
		from = end
	}
}
