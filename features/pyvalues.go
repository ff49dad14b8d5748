package features

import (
	"math"
	"strconv"
)

// MaxPythonValues is the most values PythonValues makes, so that a
// mistyped range cannot take the memory of the machine.
const MaxPythonValues = 1 << 16

// PythonValues evaluates a Python expression of a list of integers, as
// Kernel Tuner's T1 files write a tuning parameter's values (Kernel Tuner
// evaluates them with Python's eval): "[1, 2, 4]", "(8, 16)",
// "[2**i for i in range(0, 6)]", "[1, 2, 4, 8, 16] + list(range(32, 1024+1, 32))".
//
// The subset: list and tuple literals of integer expressions (those
// TranslatePython takes), range(stop) and range(start, stop[, step]),
// list(...) of a list or of a generator, comprehensions [expression for
// name in list] with an optional "if condition" (one for clause, nested
// ones inside the list), and + between lists. Every value must be an
// integer: 2**i is, 2**-1 is not. Anything else is a *SyntaxError naming
// the column.
func PythonValues(src string) ([]int, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &valuesParser{pyParser{src: src, toks: toks}}
	out, err := p.sum()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, p.errAt(t, "unexpected "+t.describe()+" after the list")
	}
	return out, nil
}

// PythonStrings reads a Python list or tuple of string literals, as a T1
// file writes a string parameter's values: "['fast', 'exact']". A
// literal holds no backslash escapes; anything else is a *SyntaxError.
func PythonStrings(src string) ([]string, error) {
	return literalList(src, "strings", func(p *pyParser) (string, error) {
		t := p.next()
		if t.kind != tStr {
			return "", p.errAt(t, "want a string, got "+t.describe())
		}
		return t.text, nil
	})
}

// PythonNumbers reads a Python list or tuple of number literals, each with
// an optional sign, as a T1 file writes a float parameter's values:
// "[0.5, 1.0, 2e-3]". It returns each as written (without a +), the text
// Kernel Tuner's #define gives the kernel; anything else is a
// *SyntaxError.
func PythonNumbers(src string) ([]string, error) {
	return literalList(src, "numbers", func(p *pyParser) (string, error) {
		sign := ""
		if p.accept("-") {
			sign = "-"
		} else {
			p.accept("+")
		}
		t := p.next()
		if t.kind != tNum {
			return "", p.errAt(t, "want a number, got "+t.describe())
		}
		return sign + t.text, nil
	})
}

// literalList reads a Python list or tuple whose items item reads, one
// each, and nothing after it; what names the items in errors.
func literalList(src, what string, item func(p *pyParser) (string, error)) ([]string, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &pyParser{src: src, toks: toks}
	closing := "]"
	if !p.accept("[") {
		if !p.accept("(") {
			return nil, p.errAt(p.peek(), "want a list of "+what+", got "+p.peek().describe())
		}
		closing = ")"
	}
	var out []string
	for !p.accept(closing) {
		v, err := item(p)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		if !p.accept(",") && !(p.peek().kind == tOp && p.peek().text == closing) {
			return nil, p.errAt(p.peek(), "want \",\" or \""+closing+"\", got "+p.peek().describe())
		}
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, p.errAt(t, "unexpected "+t.describe()+" after the list")
	}
	return out, nil
}

// valuesParser reads PythonValues' lists; the expressions inside them it
// hands to pyParser, with a comprehension's name as a constant.
type valuesParser struct{ pyParser }

// sum reads lists joined by +.
func (p *valuesParser) sum() ([]int, error) {
	out, err := p.list()
	for err == nil && p.accept("+") {
		var more []int
		if more, err = p.list(); err == nil {
			if len(out)+len(more) > MaxPythonValues {
				return nil, p.errAt(p.peek(), "more than "+strconv.Itoa(MaxPythonValues)+" values")
			}
			out = append(out, more...)
		}
	}
	return out, err
}

// list reads one list: a literal, a tuple, a comprehension, range(...)
// or list(...).
func (p *valuesParser) list() ([]int, error) {
	t := p.next()
	switch {
	case t.kind == tName && t.text == "range":
		return p.rangeCall(t)
	case t.kind == tName && t.text == "list":
		open := p.peek()
		if !p.accept("(") {
			return nil, p.errAt(open, "want ( after list")
		}
		if n := p.peek(); !(n.kind == tOp && (n.text == "[" || n.text == "(") || n.kind == tName && (n.text == "range" || n.text == "list")) {
			// list(expression for name in ...), a generator's values.
			return p.items(open, ")")
		}
		out, err := p.sum()
		if err == nil && !p.accept(")") {
			err = p.errAt(p.peek(), "want ) closing list(")
		}
		return out, err
	case t.kind == tOp && (t.text == "[" || t.text == "("):
		closing := "]"
		if t.text == "(" {
			closing = ")"
		}
		return p.items(t, closing)
	}
	return nil, p.errAt(t, "want a list of values, got "+t.describe())
}

// items reads a literal's or a comprehension's contents up to closing.
func (p *valuesParser) items(open token, closing string) ([]int, error) {
	var out []int
	if p.accept(closing) {
		return out, nil
	}
	first := p.i
	if _, _, err := p.test(); err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind == tName && t.text == "for" {
		return p.comprehension(first, closing)
	}
	p.i = first
	v, err := p.value(nil)
	if err != nil {
		return nil, err
	}
	out = append(out, v)
	for p.accept(",") {
		if p.accept(closing) {
			return out, nil
		}
		if v, err = p.value(nil); err != nil {
			return nil, err
		}
		if len(out) == MaxPythonValues {
			return nil, p.errAt(p.peek(), "more than "+strconv.Itoa(MaxPythonValues)+" values")
		}
		out = append(out, v)
	}
	if !p.accept(closing) {
		return nil, p.errAt(p.peek(), "want , or "+closing+" in the list opened at column "+strconv.Itoa(open.pos+1))
	}
	if open.text == "(" && len(out) == 1 {
		return nil, p.errAt(open, "a parenthesized value is not a list (a tuple of one is written (v,))")
	}
	return out, nil
}

// comprehension reads "for name in list [if condition] closing", the
// expression being the tokens from first, and evaluates the expression
// (and condition) for each value of the list.
func (p *valuesParser) comprehension(first int, closing string) ([]int, error) {
	p.next() // for
	name := p.next()
	if name.kind != tName || name.text == "in" {
		return nil, p.errAt(name, "want a name after for, got "+name.describe())
	}
	if !p.accept("in") {
		return nil, p.errAt(p.peek(), "want in after for "+name.text)
	}
	over, err := p.sum()
	if err != nil {
		return nil, err
	}
	cond := -1
	if p.accept("if") {
		cond = p.i
		if _, _, err := p.test(); err != nil { // its place, checked once
			return nil, err
		}
	}
	if !p.accept(closing) {
		return nil, p.errAt(p.peek(), "want "+closing+" closing the comprehension")
	}
	end := p.i
	out := make([]int, 0, len(over))
	for _, x := range over {
		consts := map[string]int{name.text: x}
		if cond >= 0 {
			p.i = cond
			keep, err := p.value(consts)
			if err != nil {
				return nil, err
			}
			if keep == 0 {
				continue
			}
		}
		p.i = first
		v, err := p.value(consts)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	p.i = end
	return out, nil
}

// rangeCall reads range's arguments and returns its values.
func (p *valuesParser) rangeCall(t token) ([]int, error) {
	if !p.accept("(") {
		return nil, p.errAt(p.peek(), "want ( after range")
	}
	var args []int
	for !p.accept(")") {
		if len(args) > 0 && !p.accept(",") {
			return nil, p.errAt(p.peek(), "want , or ) in range(")
		}
		v, err := p.value(nil)
		if err != nil {
			return nil, err
		}
		args = append(args, v)
	}
	start, stop, step := 0, 0, 1
	switch len(args) {
	case 1:
		stop = args[0]
	case 2:
		start, stop = args[0], args[1]
	case 3:
		start, stop, step = args[0], args[1], args[2]
	default:
		return nil, p.errAt(t, "range takes 1 to 3 arguments, got "+strconv.Itoa(len(args)))
	}
	if step == 0 {
		return nil, p.errAt(t, "range's step is 0")
	}
	var out []int
	for v := start; step > 0 && v < stop || step < 0 && v > stop; v += step {
		if len(out) == MaxPythonValues {
			return nil, p.errAt(t, "range makes more than "+strconv.Itoa(MaxPythonValues)+" values")
		}
		out = append(out, v)
	}
	return out, nil
}

// value reads one expression at p.i with consts in place of names and
// returns its integer value (a comparison gives 1 or 0).
func (p *valuesParser) value(consts map[string]int) (int, error) {
	at := p.peek()
	p.consts = consts
	e, _, err := p.test()
	p.consts = nil
	if err != nil {
		return 0, err
	}
	c, err := CompileCalc(e, nil)
	if err != nil {
		return 0, p.errAt(at, "cannot evaluate "+strconv.Quote(p.src[at.pos:p.peek().pos])+" to a value")
	}
	v := c.Eval(nil)
	if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
		return 0, p.errAt(at, strconv.Quote(p.src[at.pos:p.peek().pos])+" is "+strconv.FormatFloat(v, 'g', -1, 64)+", not an integer")
	}
	return int(v), nil
}
