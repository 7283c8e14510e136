package web

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// RateLimiter bounds the requests of one client address to the public
// routes: a token bucket of burst tokens refilled over window. The public
// routes need no token, so this is what keeps a script from walking them.
type RateLimiter struct {
	mu      sync.Mutex
	burst   float64
	rate    float64 // tokens per second
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

func NewRateLimiter(burst int, window time.Duration) *RateLimiter {
	return &RateLimiter{burst: float64(burst), rate: float64(burst) / window.Seconds(), buckets: map[string]*bucket{}}
}

// Allow takes a token for the request's client address (the connection's
// peer: fincom does not trust forwarding headers).
func (l *RateLimiter) Allow(r *http.Request) bool {
	ok, _ := l.Take(PeerAddr(r))
	return ok
}

// PeerAddr is the request's peer address without its port.
func PeerAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// Take takes a token from key's bucket; when there is none it answers
// false and how long until there is one (a 429's Retry-After).
func (l *RateLimiter) Take(key string) (bool, time.Duration) {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.buckets) > 10000 {
		// Forget clients whose buckets are full again.
		for k, b := range l.buckets {
			if now.Sub(b.last).Seconds()*l.rate >= l.burst {
				delete(l.buckets, k)
			}
		}
	}
	b := l.buckets[key]
	if b == nil {
		b = &bucket{tokens: l.burst, last: now}
		l.buckets[key] = b
	}
	b.tokens = min(l.burst, b.tokens+now.Sub(b.last).Seconds()*l.rate)
	b.last = now
	if b.tokens < 1 {
		return false, time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
	}
	b.tokens--
	return true, 0
}
