// Package oracle is the reference every motif engine is tested against: a
// direct, brute-force reading of the matching semantics (ARCHITECTURE.md,
// "Semantics"), and the random windows and queries the differential
// tests feed it.
//
// Mine tries every increasing k-tuple of live window positions and keeps
// the tuples that satisfy the definition, checked one condition at a time
// exactly as ARCHITECTURE.md states it. It shares no code with the
// engines: it reads the plan's inputs (the Query and the window,
// attributes by name through the schema) and never a compiled Plan. It is written to be
// obviously right, not fast: use it on windows of tens of edges.
//
// Package oracle imports window and motif only; nothing but tests should
// import it.
package oracle
