package server

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/julienschmidt/httprouter"

	"fincom/server/web"
	"fincom/store/replica"
)

// health answers GET /api/v1/health: the version, whether the data
// directory accepts a write (503 when it does not) and, replicating, the
// worst replica's lag. With the technical token (Authorization: Bearer
// token_tec) it also answers how many domains are open and each file's
// replication position and lag: anonymous, nothing names a tenant. A
// token that is not one is refused (401).
func (s *Server) health(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	operator := false
	if auth := r.Header.Get("Authorization"); auth != "" {
		tec, ok := strings.CutPrefix(auth, "Bearer ")
		if !ok || s.system == nil || s.system.CheckTecToken(r.Context(), strings.TrimSpace(tec)) != nil {
			web.WriteJSON(w, http.StatusUnauthorized, web.ErrorBody{Success: false, Error: web.TextHealthToken})
			return
		}
		operator = true
	}
	d := web.HealthData{Status: "ok", Version: s.cfg.Version}
	if operator {
		n := s.domains.OpenCount()
		d.OpenDomains = &n
	}
	probe, err := os.CreateTemp(s.domains.Dir(), ".health-*")
	if err == nil {
		probe.Close()
		err = os.Remove(filepath.Clean(probe.Name()))
	}
	d.DataDirOK = err == nil
	status := http.StatusOK
	if s.cfg.Replicas != nil {
		files := s.cfg.Replicas.Statuses(time.Now())
		worst := 0
		for _, f := range files {
			worst = max(worst, f.LagSeconds)
		}
		d.ReplicaLag = &worst
		if operator {
			d.Replication = files
		}
		if len(replica.Behind(files)) > 0 {
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
