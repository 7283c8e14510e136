package server

import (
	"net/http"
	"os"
	"path/filepath"

	"github.com/julienschmidt/httprouter"
)

type healthData struct {
	Status      string `json:"status"`
	Version     string `json:"version"`
	DataDirOK   bool   `json:"data_dir_ok"`
	OpenDomains int    `json:"open_domains"`
}

// health answers GET /api/v1/health: the version and whether the data
// directory accepts a write (503 when it does not).
func (s *Server) health(w http.ResponseWriter, _ *http.Request, _ httprouter.Params) {
	d := healthData{Status: "ok", Version: s.cfg.Version, OpenDomains: s.domains.OpenCount()}
	probe, err := os.CreateTemp(s.domains.Dir(), ".health-*")
	if err == nil {
		probe.Close()
		err = os.Remove(filepath.Clean(probe.Name()))
	}
	d.DataDirOK = err == nil
	status := http.StatusOK
	if !d.DataDirOK {
		d.Status, status = "data dir not writable", http.StatusServiceUnavailable
	}
	writeJSON(w, status, dataBody{Success: status == http.StatusOK, Data: d})
}
