//go:build cuda

package gpu

// SetPieces sets the piece lengths of c's CountWindow (at least 1): the
// tests cut sequences and triangles into many pieces.
func (c *Counter) SetPieces(centre, triangle int64) {
	c.centrePiece, c.trianglePiece = centre, triangle
}

// DefaultPieces returns CountWindow's piece lengths.
func DefaultPieces() (centre, triangle int64) { return centrePiece, trianglePiece }
