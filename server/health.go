package server

import (
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/julienschmidt/httprouter"

	"fincom/server/web"
	"fincom/store/replica"
)

// health answers GET /api/v1/health: the version, whether the data
// directory accepts a write (503 when it does not) and, replicating, each
// file's replication position and lag.
func (s *Server) health(w http.ResponseWriter, _ *http.Request, _ httprouter.Params) {
	d := web.HealthData{Status: "ok", Version: s.cfg.Version, OpenDomains: s.domains.OpenCount()}
	probe, err := os.CreateTemp(s.domains.Dir(), ".health-*")
	if err == nil {
		probe.Close()
		err = os.Remove(filepath.Clean(probe.Name()))
	}
	d.DataDirOK = err == nil
	status := http.StatusOK
	if s.cfg.Replicas != nil {
		d.Replication = s.cfg.Replicas.Statuses(time.Now())
		if len(replica.Behind(d.Replication)) > 0 {
			// Writes are still answered (the WAL holds them): a warning,
			// not a failure.
			d.Status = "replica behind"
		}
	}
	if !d.DataDirOK {
		d.Status, status = "data dir not writable", http.StatusServiceUnavailable
	}
	web.WriteJSON(w, status, web.DataBody{Success: status == http.StatusOK, Data: d})
}
