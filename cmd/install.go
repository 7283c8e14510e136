package cmd

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// defaultUnitFile is where `fincom install` writes the systemd unit, and
// where `fincom doctor` looks for it.
const defaultUnitFile = "/etc/systemd/system/fincom.service"

// envFile is the unit's optional environment file: what must not be
// written in the unit (readable by every user of the machine), as an SMTP
// password, goes there, readable by root alone.
const envFile = "/etc/fincom/fincom.env"

func newInstallCmd(a *app) *cobra.Command {
	var o serveOptions
	var user, unitFile, binary string
	var dryRun bool
	c := &cobra.Command{
		Use:   "install [serve's flags]",
		Short: "Write a systemd unit that serves with these flags, started with the machine and restarted on failure",
		Long: "Write a systemd unit (" + defaultUnitFile + ") that runs `fincom serve` with the flags given here, as a dedicated user,\n" +
			"on this data directory (--data) and secrets key file (--secrets-key-file), restarted on failure, with the descriptors a\n" +
			"busy server needs and, for --https, the right to bind ports 80 and 443 without root. It prints the commands that enable\n" +
			"it. --dry-run prints the unit and writes nothing. Flags that carry a secret (an SMTP URL with its password) are not\n" +
			"written in the unit, which every user of the machine may read: put them in " + envFile + " (FINCOM_SMTP_URL=…).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if binary == "" {
				exe, err := os.Executable()
				if err != nil {
					return err
				}
				binary = exe
			}
			unit, notes, err := a.systemdUnit(cmd.Flags(), o, user, binary)
			if err != nil {
				return err
			}
			if dryRun {
				fmt.Fprint(a.out, unit)
				for _, n := range notes {
					fmt.Fprintln(a.errOut, "# "+n)
				}
				return nil
			}
			if err := os.WriteFile(unitFile, []byte(unit), 0o644); err != nil {
				return fmt.Errorf("write the unit: %w (as root: sudo fincom install …, or --dry-run to see it)", err)
			}
			name := strings.TrimSuffix(filepath.Base(unitFile), ".service")
			var b strings.Builder
			fmt.Fprintf(&b, "wrote %s\n", unitFile)
			for _, n := range notes {
				fmt.Fprintf(&b, "note: %s\n", n)
			}
			fmt.Fprintf(&b, "enable and start it with:\n  systemctl daemon-reload\n  systemctl enable --now %s\n", name)
			return a.print(map[string]any{"unit_file": unitFile, "notes": notes,
				"commands": []string{"systemctl daemon-reload", "systemctl enable --now " + name}}, strings.TrimRight(b.String(), "\n"))
		},
	}
	o.flags(c, a)
	c.Flags().StringVar(&user, "user", "fincom", "the dedicated user the service runs as (it owns the data directory)")
	c.Flags().StringVar(&unitFile, "unit-file", defaultUnitFile, "where the unit is written")
	c.Flags().StringVar(&binary, "binary", "", "the fincom binary the unit runs (default: this one)")
	c.Flags().BoolVar(&dryRun, "dry-run", false, "print the unit, write nothing")
	return c
}

// installOwn are install's own flags, not serve's.
var installOwn = map[string]bool{"user": true, "unit-file": true, "binary": true, "dry-run": true, "data": true, "json": true, "secrets-key-file": true}

// systemdUnit is the unit that serves with the flags set on fs, and notes
// for the operator.
func (a *app) systemdUnit(fs *pflag.FlagSet, o serveOptions, user, binary string) (string, []string, error) {
	if !validUser(user) {
		return "", nil, fmt.Errorf("--user %q: a user name (lower case letters, digits, - and _)", user)
	}
	data, err := filepath.Abs(a.dataDir)
	if err != nil {
		return "", nil, err
	}
	exec := []string{binary, "--data", data}
	if a.secretsKey != "" {
		key, err := filepath.Abs(a.secretsKey)
		if err != nil {
			return "", nil, err
		}
		exec = append(exec, "--secrets-key-file", key)
	}
	exec = append(exec, "serve")
	var notes []string
	var ferr error
	writable := []string{data}
	fs.Visit(func(f *pflag.Flag) {
		if installOwn[f.Name] || ferr != nil {
			return
		}
		value := f.Value.String()
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			value = strings.Join(sv.GetSlice(), ",")
		}
		if f.Name == "smtp-url" {
			if u, err := url.Parse(value); err == nil && u.User != nil {
				if _, hasPass := u.User.Password(); hasPass {
					notes = append(notes, "--smtp-url carries a password: it is not written in the unit; put FINCOM_SMTP_URL="+
						"<the URL> in "+envFile+" (mode 600, owned by root)")
					return
				}
			}
		}
		switch f.Name {
		case "backup-dir", "cpuprofile":
			if p, err := filepath.Abs(value); err == nil {
				value = p
				writable = append(writable, filepath.Dir(p))
			}
		case "tls-cert", "tls-key", "ca-file", "fiscal-endpoints", "ibscbs-table", "replicate-key-file":
			if p, err := filepath.Abs(value); err == nil {
				value = p
			}
		}
		exec = append(exec, "--"+f.Name+"="+value)
	})
	if ferr != nil {
		return "", nil, ferr
	}
	privileged := false
	if o.tls() {
		for _, addr := range []string{o.httpsAddr, o.httpAddr} {
			if _, port, err := net.SplitHostPort(addr); err == nil {
				if n, _ := strconv.Atoi(port); n < 1024 {
					privileged = true
				}
			}
		}
	} else if _, port, err := net.SplitHostPort(o.addr); err == nil {
		if n, _ := strconv.Atoi(port); n < 1024 {
			privileged = true
		}
	}
	quoted := make([]string, len(exec))
	for i, s := range exec {
		quoted[i] = systemdQuote(s)
	}
	var b strings.Builder
	b.WriteString("# Written by `fincom install`; run it again with other flags to change them.\n")
	b.WriteString("[Unit]\nDescription=fincom, finance and sales back end\nAfter=network-online.target\nWants=network-online.target\n\n")
	b.WriteString("[Service]\nType=simple\n")
	fmt.Fprintf(&b, "User=%s\nGroup=%s\n", user, user)
	fmt.Fprintf(&b, "EnvironmentFile=-%s\n", envFile)
	fmt.Fprintf(&b, "ExecStart=%s\n", strings.Join(quoted, " "))
	// Serve drains requests for up to 30 s on SIGTERM, then delivers what
	// they queued.
	b.WriteString("KillSignal=SIGTERM\nTimeoutStopSec=60\nRestart=on-failure\nRestartSec=5\n")
	// Every connection and every open domain file is a descriptor.
	b.WriteString("LimitNOFILE=65536\n")
	if privileged {
		b.WriteString("AmbientCapabilities=CAP_NET_BIND_SERVICE\nCapabilityBoundingSet=CAP_NET_BIND_SERVICE\n")
	} else {
		b.WriteString("CapabilityBoundingSet=\n")
	}
	b.WriteString("NoNewPrivileges=true\nProtectSystem=strict\nProtectHome=true\nPrivateTmp=true\nPrivateDevices=true\n")
	fmt.Fprintf(&b, "ReadWritePaths=%s\n", strings.Join(writable, " "))
	b.WriteString("UMask=0077\n\n[Install]\nWantedBy=multi-user.target\n")
	notes = append(notes, fmt.Sprintf("the service runs as %s, who must own %s: useradd --system --home-dir %s --shell /usr/sbin/nologin %s && chown -R %s: %s",
		user, data, data, user, user, data))
	return b.String(), notes, nil
}

func validUser(u string) bool {
	if u == "" || len(u) > 32 {
		return false
	}
	for _, r := range u {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// systemdQuote quotes an ExecStart word when it needs it (systemd's
// quoting: double quotes, backslash escapes; % doubled).
func systemdQuote(s string) string {
	s = strings.ReplaceAll(s, "%", "%%")
	if s != "" && !strings.ContainsAny(s, " \t\"'\\;$") {
		return s
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", "$$").Replace(s) + `"`
}

// unitDataDir is the data directory a systemd unit serves (its
// ExecStart's --data), and its flags; "" when it names none.
func unitDataDir(unit string) (data string, flags map[string]string) {
	flags = map[string]string{}
	for _, line := range strings.Split(unit, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "ExecStart=")
		if !ok {
			continue
		}
		words := splitUnitWords(rest)
		for i := 0; i < len(words); i++ {
			w := words[i]
			if !strings.HasPrefix(w, "--") {
				continue
			}
			name, value, eq := strings.Cut(strings.TrimPrefix(w, "--"), "=")
			if !eq && i+1 < len(words) && !strings.HasPrefix(words[i+1], "--") && words[i+1] != "serve" {
				value = words[i+1]
				i++
			}
			flags[name] = value
		}
	}
	return flags["data"], flags
}

// splitUnitWords splits an ExecStart line into its words, as systemd
// does for the quoting systemdQuote writes.
func splitUnitWords(s string) []string {
	var out []string
	var cur strings.Builder
	in, quoted := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quoted && c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
		case c == '"':
			quoted, in = !quoted, true
		case !quoted && (c == ' ' || c == '\t'):
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	for i, w := range out {
		out[i] = strings.ReplaceAll(strings.ReplaceAll(w, "%%", "%"), "$$", "$")
	}
	return out
}
