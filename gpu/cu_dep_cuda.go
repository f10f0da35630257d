//go:build cuda

package gpu

import _ "gorgonia.org/cu"
