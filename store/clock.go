package store

import (
	"sync/atomic"
	"time"
)

// clock is a domain's clock: the process clock, unless test mode froze it
// at a moment or moved it by an offset. It belongs to Domains, so it
// survives the domain's file being closed when idle.
type clock struct {
	base   func() time.Time
	frozen atomic.Int64 // unix nanoseconds; 0: not frozen
	offset atomic.Int64 // nanoseconds added to base
}

func (c *clock) now() time.Time {
	if f := c.frozen.Load(); f != 0 {
		return time.Unix(0, f).UTC()
	}
	return c.base().Add(time.Duration(c.offset.Load()))
}

// clockOf returns a domain's clock, making it on first use. The caller
// holds d.mu.
func (d *Domains) clockOf(name string) *clock {
	c := d.clocks[name]
	if c == nil {
		c = &clock{base: d.opts.Now}
		d.clocks[name] = c
	}
	return c
}

// SetClock freezes a domain's clock at t (test mode).
func (d *Domains) SetClock(name string, t time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.clockOf(name).frozen.Store(t.UnixNano())
}

// ResetClock gives a domain back the process clock.
func (d *Domains) ResetClock(name string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	c := d.clockOf(name)
	c.frozen.Store(0)
	c.offset.Store(0)
}

// DomainNow is a domain's clock reading.
func (d *Domains) DomainNow(name string) time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.clockOf(name).now()
}
