package stream

// Bytes returns the memory the processor holds for its window, what
// window.max_bytes (Options.MaxBytes) caps and motifwatch_window_bytes
// shows: the window (window.Window.Bytes: edges, adjacency, pair index,
// node dictionary), the decoders' node dictionary (Options.NodeKeys,
// window.Keys.Bytes: it grows with the distinct ids coming in, refused
// ones included), the per-edge metadata alerts need, the held matches
// and the append scratch, which is sized to the largest batch. It walks
// every adjacency list: call it once per batch.
func (p *Processor) Bytes() int64 {
	b := p.w.Bytes() + p.ownBytes()
	if k := p.opts.NodeKeys; k != nil {
		b += k.Bytes()
	}
	return b
}

// ownBytes is the processor's own part of Bytes.
func (p *Processor) ownBytes() int64 { return p.meta.bytes() + p.held.bytes() + p.app.bytes() }

// keyLimitFloor is the least a generation of Options.NodeKeys may hold
// (the processor keeps it at twice the live nodes plus this): a small
// window must not start one every few batches, and under a memory cap
// the floor's names (about 100 bytes each, counted in Bytes) take at
// most a tenth of the cap.
func keyLimitFloor(maxBytes int64) int {
	const most, least = 1 << 16, 1 << 10
	if maxBytes <= 0 {
		return most
	}
	return int(min(max(maxBytes/1024, least), most))
}

// limitKeys sets the node dictionary's generation limit from the live
// nodes, and with renew starts a new generation at once if the current
// one holds more (the memory cap, after evicting).
func (p *Processor) limitKeys(renew bool) {
	k := p.opts.NodeKeys
	if k == nil {
		return
	}
	k.SetLimit(2*p.w.IDs().Len() + keyLimitFloor(p.opts.MaxBytes))
	if renew {
		k.Renew()
	}
}
