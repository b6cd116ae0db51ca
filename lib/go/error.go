package placement

// #include <placement.h>
import "C"

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Error is an error of the library: the C code and the element it names,
// by kind, index and id.
//
// Index and Other are -1 when the error names no index. ID is the id of the
// element named (a member or stream id, a shard key; for an override or a
// copy, its shard's key), "" when it has none. Reference is, for an element
// that names an id the snapshot lacks (a replica naming an unknown member),
// that id.
//
// errors.Is(err, ErrDupMember) holds for an *Error of that code.
type Error struct {
	Code      Code        // the negative PL_E_* code
	Kind      ElementKind // which kind of element it names
	Index     int         // the element's index in its array (the order given to NewSnapshot), or -1
	Other     int         // for a duplicate, the earlier element it clashes with; else -1
	ID        string      // the id of the element named
	Reference string      // an id the element names and the snapshot lacks
}

// Is reports whether target is this error's Code.
func (e *Error) Is(target error) bool {
	c, ok := target.(Code)
	return ok && c == e.Code
}

// Error is the code's name and message, then the element: kind, index, id,
// the unknown id it names, the element it clashes with:
// `E_DUP_MEMBER: duplicate member id (member 1 "b0", clashes with 0)`.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Code.Error())
	if e.Kind != ElemNone {
		b.WriteString(" (")
		b.WriteString(e.Kind.String())
		if e.Index >= 0 {
			b.WriteString(" " + strconv.Itoa(e.Index))
		}
		if e.ID != "" {
			b.WriteString(" " + shown(e.ID))
		}
		if e.Reference != "" {
			b.WriteString(", names unknown " + shown(e.Reference))
		}
		if e.Other >= 0 {
			b.WriteString(", clashes with " + strconv.Itoa(e.Other))
		}
		b.WriteString(")")
	}
	return b.String()
}

// shownRunes is how much of an id an error message quotes (the Error keeps
// it whole).
const shownRunes = 48

func shown(id string) string {
	if utf8.RuneCountInString(id) <= shownRunes {
		return strconv.Quote(id)
	}
	cut, n := 0, 0
	for i := range id {
		if n == shownRunes {
			cut = i
			break
		}
		n++
	}
	return fmt.Sprintf("%s... (%d bytes)", strconv.Quote(id[:cut]), len(id))
}

// codeError is an error with a code and nothing else.
func codeError(rc C.int) *Error {
	return &Error{Code: Code(rc), Index: -1, Other: -1}
}

// diagError is the error for a diag the call filled: when the diag's code
// is not the call's (the call filled none), only the code.
func diagError(rc C.int, d *C.pl_diag) *Error {
	e := codeError(rc)
	if d.code == C.int32_t(rc) {
		e.Kind = ElementKind(d.kind)
		if d.kind != C.PL_ELEM_NONE {
			e.Index = int(d.index)
		}
		if d.other != C.PL_NONE {
			e.Other = int(d.other)
		}
	}
	return e
}
