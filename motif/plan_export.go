package motif

// CompiledOperand is one side of a compiled predicate as the engines
// (motif/cpu, gpu) read it: what it reads and the resolved column.
type CompiledOperand struct {
	Kind OperandKind
	// Index is the motif edge (EdgeAttr) or motif node (NodeAttr) read.
	Index int
	// Col is the window attribute column (EdgeAttr, NodeAttr).
	Col int
	// Value is a Literal's value (string literals as dictionary codes);
	// List holds a List's values.
	Value float64
	List  []float64
}

// Operands returns the compiled operands of the predicate.
func (pp *PlanPred) Operands() (left, right CompiledOperand) {
	conv := func(o planOperand) CompiledOperand {
		return CompiledOperand{Kind: o.kind, Index: o.index, Col: o.col, Value: o.val, List: o.list}
	}
	return conv(pp.Left), conv(pp.Right)
}
