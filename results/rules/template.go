package rules

import (
	"strings"
)

// A template is a message with placeholders {{ .Name }} for the groups that
// message matchers capture. It is not text/template: a placeholder is the
// only action, so rendering takes time and space linear in the message and
// the captures, whatever the template says.
type template struct {
	parts []part
}

// A part is literal text, or the group it names.
type part struct {
	text  string
	group bool
}

// parseTemplate parses s, whose placeholders may name only groups.
func parseTemplate(s string, groups map[string]bool, path string) (*template, error) {
	if len(s) > MaxTemplateLength {
		return nil, invalid(path, "template of %d bytes, longer than %d", len(s), MaxTemplateLength)
	}
	t := &template{}
	for {
		i := strings.Index(s, "{{")
		if i < 0 {
			if strings.Contains(s, "}}") {
				return nil, invalid(path, "unmatched }} (a placeholder is {{ .Name }})")
			}
			if s != "" {
				t.parts = append(t.parts, part{text: s})
			}
			return t, nil
		}
		if strings.Contains(s[:i], "}}") {
			return nil, invalid(path, "unmatched }} (a placeholder is {{ .Name }})")
		}
		if i > 0 {
			t.parts = append(t.parts, part{text: s[:i]})
		}
		end := strings.Index(s[i:], "}}")
		if end < 0 {
			return nil, invalid(path, "unterminated placeholder (a placeholder is {{ .Name }})")
		}
		action := strings.TrimSpace(s[i+2 : i+end])
		name, ok := strings.CutPrefix(action, ".")
		if !ok || !isIdentifier(name) {
			return nil, invalid(path, "a placeholder is {{ .Name }}, the name of a group that a message matcher of the hook captures; no other template action is supported")
		}
		if !groups[name] {
			return nil, invalid(path, "placeholder {{ .%s }} names no group that a message matcher of the hook captures", name)
		}
		t.parts = append(t.parts, part{text: name, group: true})
		s = s[i+end+2:]
	}
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// render returns the message with each placeholder replaced by its capture
// (empty when the group did not take part in the match), bounded to
// MaxMessageLength.
func (t *template) render(captures map[string]string) string {
	var b strings.Builder
	for _, p := range t.parts {
		if b.Len() > MaxMessageLength {
			break
		}
		if !p.group {
			b.WriteString(p.text)
			continue
		}
		v := captures[p.text]
		if room := MaxMessageLength + 1 - b.Len(); len(v) > room {
			v = v[:room] // truncate cuts on a rune boundary below
		}
		b.WriteString(v)
	}
	return truncate(b.String())
}
