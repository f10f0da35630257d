package gpu

import (
	"errors"
	"fmt"
)

// ErrNoDevice reports that no GPU can be used: the binary was built
// without the `cuda` tag, or no device was found or opened.
var ErrNoDevice = errors.New("gpu: no usable CUDA device")

// CUDAError is a failed CUDA driver call: which call, on which device,
// and the driver's result.
type CUDAError struct {
	Op     string
	Device int
	Err    error
}

func (e *CUDAError) Error() string {
	return fmt.Sprintf("gpu: device %d: %s: %v", e.Device, e.Op, e.Err)
}

func (e *CUDAError) Unwrap() error { return e.Err }

// OutOfMemoryError reports that a device cannot hold what was asked of it.
type OutOfMemoryError struct {
	Device      int
	Need, Total int64
	What        string
}

func (e *OutOfMemoryError) Error() string {
	return fmt.Sprintf("gpu: device %d: %s needs %d MiB, more than the %d MiB the device has free", e.Device, e.What, e.Need>>20, e.Total>>20)
}
