package features

import (
	"strconv"
	"strings"
)

// TranslatePython rewrites a Python expression, as Kernel Tuner and T1
// files write constraints and launch sizes, into the expr-lang syntax of
// Space's constraints and ExprDeriver.
//
// The subset covers what tuning constraints use: integer and float
// literals, parameter names, True and False, parentheses, the arithmetic
// operators + - * / // % **, the bitwise operators & | ^ ~ << >> (on
// integers), comparisons (chained ones too), in and not in over list or
// tuple literals, and, or, not, conditional expressions (x if c else y),
// and calls of min, max, abs, int and float; string literals only through
// TranslatePythonNames. Python's // floors, while expr's / divides in floating
// point, so a // b becomes int(floor(a / b)). % stays %, and Space's
// constraints, ExprDeriver and Calc compute Python's (the remainder takes
// the divisor's sign), of floats too (KWG % ((MDIMC * NDIMC) / MDIMA));
// expr's own, left only where Calc cannot compile an expression, takes
// the dividend's sign between integers, which agrees for the non-negative
// values tuning parameters take.
// Anything else (other calls, attributes) is a *SyntaxError.
func TranslatePython(src string) (string, error) {
	return TranslatePythonWith(src, nil)
}

// TranslatePythonWith is TranslatePython with names replaced by constants,
// so that a parameter moved into the task can leave the constraints that
// mention it.
func TranslatePythonWith(src string, consts map[string]int) (string, error) {
	return translate(src, PythonNames{Consts: consts})
}

// PythonNames says what TranslatePythonNames replaces; a nil map replaces
// nothing.
type PythonNames struct {
	// Consts replaces names by integers (a parameter moved into the task).
	Consts map[string]int
	// Strings gives string literals the numbers of a string parameter's
	// values, so that MODE == 'fast' compares MODE with the number of
	// 'fast'. A string it lacks is a *SyntaxError.
	Strings map[string]int
	// Numbers replaces a name whose value numbers one of several numbers
	// (a float parameter's values, numbered 0, 1, ...) by that number:
	// ratio becomes (ratio == 0 ? 0.5 : ratio == 1 ? 1.0 : ...).
	Numbers map[string][]string
}

// TranslatePythonNames is TranslatePython with names and strings replaced
// as n says.
func TranslatePythonNames(src string, n PythonNames) (string, error) {
	return translate(src, n)
}

func translate(src string, n PythonNames) (string, error) {
	toks, err := lex(src)
	if err != nil {
		return "", err
	}
	p := &pyParser{src: src, toks: toks, consts: n.Consts, strs: n.Strings, numbers: n.Numbers}
	out, _, err := p.test()
	if err != nil {
		return "", err
	}
	if t := p.peek(); t.kind != tEOF {
		return "", p.errAt(t, "unexpected "+t.describe())
	}
	return out, nil
}

// Token kinds of the Python subset.
const (
	tEOF = iota
	tNum
	tName
	tOp
	tStr // a string literal; text is its contents
)

type token struct {
	kind int
	text string
	pos  int
}

func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "end of expression"
	case tStr:
		return "string " + strconv.Quote(t.text)
	}
	return strconv.Quote(t.text)
}

// lex splits src into tokens. Operators are matched longest first, so
// that "//" and "**" are never read as two tokens.
func lex(src string) ([]token, error) {
	var toks []token
	ops := []string{"**", "//", "==", "!=", "<<", ">>", "<=", ">=", "<", ">", "+", "-", "*", "/", "%", "&", "|", "^", "~", "(", ")", "[", "]", ","}
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9':
			j := i
			for j < len(src) && (src[j] >= '0' && src[j] <= '9' || src[j] == '.') {
				j++
			}
			if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
				k := j + 1
				if k < len(src) && (src[k] == '+' || src[k] == '-') {
					k++
				}
				if k < len(src) && src[k] >= '0' && src[k] <= '9' {
					for j = k; j < len(src) && src[j] >= '0' && src[j] <= '9'; j++ {
					}
				}
			}
			if _, err := strconv.ParseFloat(src[i:j], 64); err != nil {
				return nil, &SyntaxError{src, i, "malformed number " + strconv.Quote(src[i:j])}
			}
			// expr's integers are 64-bit; Python's are unbounded.
			if !strings.ContainsAny(src[i:j], ".eE") {
				if _, err := strconv.ParseInt(src[i:j], 10, 64); err != nil {
					return nil, &SyntaxError{src, i, "integer " + src[i:j] + " out of range"}
				}
			}
			if j < len(src) && isNameByte(src[j]) {
				return nil, &SyntaxError{src, j, "malformed number " + strconv.Quote(src[i:j+1])}
			}
			toks = append(toks, token{tNum, src[i:j], i})
			i = j
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(src) && src[j] != c && src[j] != '\\' && src[j] != '\n' {
				j++
			}
			if j >= len(src) || src[j] != c {
				return nil, &SyntaxError{src, i, "unterminated string, or one with a backslash escape"}
			}
			toks = append(toks, token{tStr, src[i+1 : j], i})
			i = j + 1
		case isNameByte(c):
			j := i
			for j < len(src) && (isNameByte(src[j]) || src[j] >= '0' && src[j] <= '9') {
				j++
			}
			toks = append(toks, token{tName, src[i:j], i})
			i = j
		default:
			op := ""
			for _, o := range ops {
				if strings.HasPrefix(src[i:], o) {
					op = o
					break
				}
			}
			if op == "" {
				return nil, &SyntaxError{src, i, "unsupported character " + strconv.QuoteRune(rune(c))}
			}
			toks = append(toks, token{tOp, op, i})
			i += len(op)
		}
	}
	return append(toks, token{tEOF, "", len(src)}), nil
}

func isNameByte(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// Precedence levels of the translated text, loosest first. Each parse
// method returns its text with a level, and a caller wraps the text in
// parentheses when the level is looser than the place it goes needs.
const (
	lvOr = iota + 1
	lvAnd
	lvNot
	lvCmp
	lvAdd
	lvMul
	lvUnary
	lvPow
	lvAtom
)

// pyParser is a recursive-descent parser of Python's expression grammar
// (or_test, and_test, not_test, comparison, arith, term, factor, power,
// atom) that writes expr text as it goes.
type pyParser struct {
	src     string
	toks    []token
	i       int
	consts  map[string]int
	strs    map[string]int      // string literals' numbers (PythonNames.Strings)
	numbers map[string][]string // PythonNames.Numbers
}

func (p *pyParser) peek() token { return p.toks[p.i] }

func (p *pyParser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

// accept consumes the next token when it is the operator or keyword s.
func (p *pyParser) accept(s string) bool {
	t := p.peek()
	if (t.kind == tOp || t.kind == tName) && t.text == s {
		p.i++
		return true
	}
	return false
}

func (p *pyParser) errAt(t token, msg string) error {
	return &SyntaxError{Expr: p.src, Pos: t.pos, Msg: msg}
}

func wrap(s string, lv, need int) string {
	if lv < need {
		return "(" + s + ")"
	}
	return s
}

// test reads a conditional expression, x if c else y, as expr's c ? x : y.
func (p *pyParser) test() (string, int, error) {
	if t := p.peek(); t.kind == tName && (t.text == "lambda" || t.text == "if") {
		return "", 0, p.errAt(t, "unsupported keyword "+t.describe())
	}
	s, lv, err := p.orTest()
	if err != nil || !p.accept("if") {
		return s, lv, err
	}
	c, _, err := p.orTest()
	if err != nil {
		return "", 0, err
	}
	if t := p.peek(); !p.accept("else") {
		return "", 0, p.errAt(t, "want \"else\", got "+t.describe())
	}
	r, _, err := p.test()
	if err != nil {
		return "", 0, err
	}
	return "(" + c + " ? " + s + " : " + r + ")", lvAtom, nil
}

func (p *pyParser) orTest() (string, int, error) {
	s, lv, err := p.andTest()
	for err == nil && p.accept("or") {
		var r string
		var rl int
		if r, rl, err = p.andTest(); err == nil {
			s, lv = wrap(s, lv, lvOr)+" or "+wrap(r, rl, lvAnd), lvOr
		}
	}
	return s, lv, err
}

func (p *pyParser) andTest() (string, int, error) {
	s, lv, err := p.notTest()
	for err == nil && p.accept("and") {
		var r string
		var rl int
		if r, rl, err = p.notTest(); err == nil {
			s, lv = wrap(s, lv, lvAnd)+" and "+wrap(r, rl, lvNot), lvAnd
		}
	}
	return s, lv, err
}

// notTest parenthesizes the operand of not unless it is an atom: in expr,
// not binds tighter than comparisons, in Python looser.
func (p *pyParser) notTest() (string, int, error) {
	if p.accept("not") {
		s, lv, err := p.notTest()
		if err != nil {
			return "", 0, err
		}
		return "not " + wrap(s, lv, lvAtom), lvNot, nil
	}
	return p.comparison()
}

// comparison writes a chain a < b < c as a < b and b < c, as Python
// means it; expr would compare the boolean a < b with c.
func (p *pyParser) comparison() (string, int, error) {
	left, lv, err := p.bitOr()
	if err != nil {
		return "", 0, err
	}
	var parts []string
	for {
		t := p.peek()
		op := ""
		switch {
		case t.kind == tOp && (t.text == "==" || t.text == "!=" || t.text == "<" || t.text == "<=" || t.text == ">" || t.text == ">="):
			op = t.text
		case t.kind == tName && t.text == "in":
			op = "in"
		case t.kind == tName && t.text == "not" && p.toks[p.i+1].kind == tName && p.toks[p.i+1].text == "in":
			op = "not in"
			p.i++
		case t.kind == tName && t.text == "is":
			return "", 0, p.errAt(t, "unsupported operator \"is\"")
		}
		if op == "" {
			break
		}
		p.i++
		right, rl, err := p.bitOr()
		if err != nil {
			return "", 0, err
		}
		l, r := wrap(left, lv, lvAdd), wrap(right, rl, lvAdd)
		if op == "not in" {
			parts = append(parts, "not ("+l+" in "+r+")")
		} else {
			parts = append(parts, l+" "+op+" "+r)
		}
		left, lv = right, rl
	}
	switch len(parts) {
	case 0:
		return left, lv, nil
	case 1:
		if strings.HasPrefix(parts[0], "not (") {
			return parts[0], lvNot, nil
		}
		return parts[0], lvCmp, nil
	}
	return strings.Join(parts, " and "), lvAnd, nil
}

// bitwise are Python's bitwise binary operators, loosest first (as its
// grammar's or_expr, xor_expr, and_expr and shift_expr), and the expr
// builtins that compute them on integers.
var bitwise = []map[string]string{{"|": "bitor"}, {"^": "bitxor"}, {"&": "bitand"}, {"<<": "bitshl", ">>": "bitshr"}}

func (p *pyParser) bitOr() (string, int, error) { return p.bitLevel(0) }

// bitLevel reads the operators of bitwise[k] and tighter, each a call.
func (p *pyParser) bitLevel(k int) (string, int, error) {
	operand := p.arith
	if k+1 < len(bitwise) {
		operand = func() (string, int, error) { return p.bitLevel(k + 1) }
	}
	s, lv, err := operand()
	for err == nil {
		t := p.peek()
		fn, ok := bitwise[k][t.text]
		if t.kind != tOp || !ok {
			break
		}
		p.i++
		var r string
		if r, _, err = operand(); err == nil {
			s, lv = fn+"("+s+", "+r+")", lvAtom
		}
	}
	return s, lv, err
}

func (p *pyParser) arith() (string, int, error) {
	s, lv, err := p.term()
	for err == nil {
		t := p.peek()
		if t.kind != tOp || t.text != "+" && t.text != "-" {
			break
		}
		p.i++
		var r string
		var rl int
		if r, rl, err = p.term(); err == nil {
			s, lv = wrap(s, lv, lvAdd)+" "+t.text+" "+wrap(r, rl, lvMul), lvAdd
		}
	}
	return s, lv, err
}

func (p *pyParser) term() (string, int, error) {
	s, lv, err := p.factor()
	for err == nil {
		t := p.peek()
		if t.kind != tOp || t.text != "*" && t.text != "/" && t.text != "//" && t.text != "%" {
			break
		}
		p.i++
		var r string
		var rl int
		if r, rl, err = p.factor(); err != nil {
			break
		}
		l, r := wrap(s, lv, lvMul), wrap(r, rl, lvUnary)
		if t.text == "//" {
			s, lv = "int(floor("+l+" / "+r+"))", lvAtom
		} else {
			s, lv = l+" "+t.text+" "+r, lvMul
		}
	}
	return s, lv, err
}

// factor parenthesizes the operand of a unary sign unless it is an atom,
// so that -2 ** 2 stays -(2 ** 2) and - -a never reads as "--a".
func (p *pyParser) factor() (string, int, error) {
	t := p.peek()
	if t.kind == tOp && (t.text == "-" || t.text == "+" || t.text == "~") {
		p.i++
		s, lv, err := p.factor()
		if err != nil {
			return "", 0, err
		}
		if t.text == "~" {
			return "bitnot(" + s + ")", lvAtom, nil
		}
		return t.text + wrap(s, lv, lvAtom), lvUnary, nil
	}
	return p.power()
}

func (p *pyParser) power() (string, int, error) {
	s, lv, err := p.atom()
	if err != nil || !p.accept("**") {
		return s, lv, err
	}
	r, rl, err := p.factor()
	if err != nil {
		return "", 0, err
	}
	return wrap(s, lv, lvAtom) + " ** " + wrap(r, rl, lvPow), lvPow, nil
}

// functions are the Python builtins a constraint may call; expr has each
// under the same name with the same meaning for numbers.
var functions = map[string]bool{"min": true, "max": true, "abs": true, "int": true, "float": true}

func (p *pyParser) atom() (string, int, error) {
	t := p.next()
	switch t.kind {
	case tNum:
		return t.text, lvAtom, nil
	case tStr:
		if v, ok := p.strs[t.text]; ok {
			return strconv.Itoa(v), lvAtom, nil
		}
		return "", 0, p.errAt(t, "string "+strconv.Quote(t.text)+" is no value of a string parameter")
	case tName:
		switch t.text {
		case "True":
			return "true", lvAtom, nil
		case "False":
			return "false", lvAtom, nil
		case "and", "or", "not", "in", "is", "if", "else", "lambda", "None":
			return "", 0, p.errAt(t, "unexpected "+t.describe())
		}
		if p.peek().kind == tOp && p.peek().text == "(" {
			if !functions[t.text] {
				return "", 0, p.errAt(t, "unsupported function "+t.describe())
			}
			p.i++
			args, err := p.list(")")
			if err != nil {
				return "", 0, err
			}
			return t.text + "(" + strings.Join(args, ", ") + ")", lvAtom, nil
		}
		if vs, ok := p.numbers[t.text]; ok && len(vs) > 0 {
			chain := vs[len(vs)-1]
			for i := len(vs) - 2; i >= 0; i-- {
				chain = t.text + " == " + strconv.Itoa(i) + " ? " + wrap(vs[i], lvUnary, lvAtom) + " : " + chain
			}
			return "(" + chain + ")", lvAtom, nil
		}
		if v, ok := p.consts[t.text]; ok {
			if v < 0 {
				return "(" + strconv.Itoa(v) + ")", lvAtom, nil
			}
			return strconv.Itoa(v), lvAtom, nil
		}
		return t.text, lvAtom, nil
	case tOp:
		switch t.text {
		case "(":
			start := p.i
			s, lv, err := p.test()
			if err != nil {
				return "", 0, err
			}
			if p.accept(")") {
				return s, lv, nil
			}
			// A tuple: read it again as a list, which is what expr's
			// in operator takes.
			p.i = start
			items, err := p.list(")")
			if err != nil {
				return "", 0, err
			}
			return "[" + strings.Join(items, ", ") + "]", lvAtom, nil
		case "[":
			items, err := p.list("]")
			if err != nil {
				return "", 0, err
			}
			return "[" + strings.Join(items, ", ") + "]", lvAtom, nil
		}
	}
	return "", 0, p.errAt(t, "unexpected "+t.describe())
}

// list reads comma-separated expressions up to the closing bracket, which
// it consumes. A trailing comma is allowed, as in Python.
func (p *pyParser) list(closing string) ([]string, error) {
	var items []string
	for !p.accept(closing) {
		s, _, err := p.test()
		if err != nil {
			return nil, err
		}
		items = append(items, s)
		if !p.accept(",") {
			if t := p.peek(); !(t.kind == tOp && t.text == closing) {
				return nil, p.errAt(t, "want \",\" or \""+closing+"\", got "+t.describe())
			}
		}
	}
	return items, nil
}
