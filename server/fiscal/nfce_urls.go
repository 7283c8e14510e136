package fiscal

// The NFC-e's addresses of each state, in homologação and production:
// where its QR code points and the consultation address printed beside
// it (urlChave). Taken from the nfephp-org/sped-nfe repository at commit
// 3b44ec9 (storage/wsnfe_4.00_mod65.xml, NfeConsultaQR, and
// uri_consulta_nfce.json), the package the schemas of schemas/ come from;
// the states publish them in their portals.
var nfceURLs = map[string][2]struct{ qr, consulta string }{
	"AC": {{"http://www.hml.sefaznet.ac.gov.br/nfce/qrcode", "www.sefaznet.ac.gov.br/nfce/consulta"}, {"http://www.sefaznet.ac.gov.br/nfce/qrcode", "www.sefaznet.ac.gov.br/nfce/consulta"}},
	"AL": {{"http://nfce.sefaz.al.gov.br/QRCode/consultarNFCe.jsp", "www.sefaz.al.gov.br/nfce/consulta"}, {"http://nfce.sefaz.al.gov.br/QRCode/consultarNFCe.jsp", "www.sefaz.al.gov.br/nfce/consulta"}},
	"AM": {{"https://sistemas.sefaz.am.gov.br/nfceweb-hom/consultarNFCe.jsp", "www.sefaz.am.gov.br/nfce/consulta"}, {"https://sistemas.sefaz.am.gov.br/nfceweb/consultarNFCe.jsp", "www.sefaz.am.gov.br/nfce/consulta"}},
	"AP": {{"https://www.sefaz.ap.gov.br/nfcehml/nfce.php", "www.sefaz.ap.gov.br/nfce/consulta"}, {"https://www.sefaz.ap.gov.br/nfce/nfcep.php", "www.sefaz.ap.gov.br/nfce/consulta"}},
	"BA": {{"http://hnfe.sefaz.ba.gov.br/servicos/nfce/qrcode.aspx", "http://hinternet.sefaz.ba.gov.br/nfce/consulta"}, {"http://nfe.sefaz.ba.gov.br/servicos/nfce/qrcode.aspx", "http://www.sefaz.ba.gov.br/nfce/consulta"}},
	"CE": {{"http://nfceh.sefaz.ce.gov.br/pages/ShowNFCe.html", "www.sefaz.ce.gov.br/nfce/consulta"}, {"http://nfce.sefaz.ce.gov.br/pages/ShowNFCe.html", "www.sefaz.ce.gov.br/nfce/consulta"}},
	"DF": {{"http://dec.fazenda.df.gov.br/ConsultarNFCe.aspx", "www.fazenda.df.gov.br/nfce/consulta"}, {"http://www.fazenda.df.gov.br/nfce/qrcode", "www.fazenda.df.gov.br/nfce/consulta"}},
	"ES": {{"http://homologacao.sefaz.es.gov.br/ConsultaNFCe/qrcode.aspx", "www.sefaz.es.gov.br/nfce/consulta"}, {"http://app.sefaz.es.gov.br/ConsultaNFCe/qrcode.aspx", "www.sefaz.es.gov.br/nfce/consulta"}},
	"GO": {{"https://nfewebhomolog.sefaz.go.gov.br/nfeweb/sites/nfce/danfeNFCe", "www.nfce.go.gov.br/post/ver/214413/consulta-nfc-e-homologacao"}, {"https://nfeweb.sefaz.go.gov.br/nfeweb/sites/nfce/danfeNFCe", "www.sefaz.go.gov.br/nfce/consulta"}},
	"MA": {{"http://www.hom.nfce.sefaz.ma.gov.br/portal/consultarNFCe.jsp", "www.sefaz.ma.gov.br/nfce/consulta"}, {"http://www.nfce.sefaz.ma.gov.br/portal/consultarNFCe.jsp", "www.sefaz.ma.gov.br/nfce/consulta"}},
	"MG": {{"https://portalsped.fazenda.mg.gov.br/portalnfce/sistema/qrcode.xhtml", "https://hportalsped.fazenda.mg.gov.br/portalnfce"}, {"https://portalsped.fazenda.mg.gov.br/portalnfce/sistema/qrcode.xhtml", "https://portalsped.fazenda.mg.gov.br/portalnfce"}},
	"MS": {{"http://www.dfe.ms.gov.br/nfce/qrcode", "http://www.dfe.ms.gov.br/nfce/consulta"}, {"http://www.dfe.ms.gov.br/nfce/qrcode", "http://www.dfe.ms.gov.br/nfce/consulta"}},
	"MT": {{"http://homologacao.sefaz.mt.gov.br/nfce/consultanfce", "http://homologacao.sefaz.mt.gov.br/nfce/consultanfce"}, {"http://www.sefaz.mt.gov.br/nfce/consultanfce", "http://www.sefaz.mt.gov.br/nfce/consultanfce"}},
	"PA": {{"https://appnfc.sefa.pa.gov.br/portal-homologacao/view/consultas/nfce/nfceForm.seam", "www.sefa.pa.gov.br/nfce/consulta"}, {"https://appnfc.sefa.pa.gov.br/portal/view/consultas/nfce/nfceForm.seam", "www.sefa.pa.gov.br/nfce/consulta"}},
	"PB": {{"http://www.sefaz.pb.gov.br/nfcehom", "www.sefaz.pb.gov.br/nfcehom"}, {"http://www.sefaz.pb.gov.br/nfce", "www.sefaz.pb.gov.br/nfce/consulta"}},
	"PE": {{"http://nfcehomolog.sefaz.pe.gov.br/nfce/consulta", "nfce.sefaz.pe.gov.br/nfce/consulta"}, {"http://nfce.sefaz.pe.gov.br/nfce/consulta", "nfce.sefaz.pe.gov.br/nfce/consulta"}},
	"PI": {{"http://www.sefaz.pi.gov.br/nfce/qrcode", "www.sefaz.pi.gov.br/nfce/consulta"}, {"http://www.sefaz.pi.gov.br/nfce/qrcode", "www.sefaz.pi.gov.br/nfce/consulta"}},
	"PR": {{"http://www.fazenda.pr.gov.br/nfce/qrcode", "http://www.fazenda.pr.gov.br/nfce/consulta"}, {"http://www.fazenda.pr.gov.br/nfce/qrcode", "http://www.fazenda.pr.gov.br/nfce/consulta"}},
	"RJ": {{"http://www4.fazenda.rj.gov.br/consultaNFCe/QRCode", "www.fazenda.rj.gov.br/nfce/consulta"}, {"https://consultadfe.fazenda.rj.gov.br/consultaNFCe/QRCode", "www.fazenda.rj.gov.br/nfce/consulta"}},
	"RN": {{"http://hom.nfce.set.rn.gov.br/consultarNFCe.aspx", "www.set.rn.gov.br/nfce/consulta"}, {"http://nfce.set.rn.gov.br/consultarNFCe.aspx", "www.set.rn.gov.br/nfce/consulta"}},
	"RO": {{"http://www.nfce.sefin.ro.gov.br/consultanfce/consulta.jsp", "www.sefin.ro.gov.br/nfce/consulta"}, {"http://www.nfce.sefin.ro.gov.br/consultanfce/consulta.jsp", "www.sefin.ro.gov.br/nfce/consulta"}},
	"RR": {{"http://200.174.88.103:8080/nfce/servlet/qrcode", "www.sefaz.rr.gov.br/nfce/consulta"}, {"https://www.sefaz.rr.gov.br/servlet/qrcode", "www.sefaz.rr.gov.br/nfce/consulta"}},
	"RS": {{"https://www.sefaz.rs.gov.br/NFCE/NFCE-COM.aspx", "www.sefaz.rs.gov.br/nfce/consulta"}, {"https://www.sefaz.rs.gov.br/NFCE/NFCE-COM.aspx", "www.sefaz.rs.gov.br/nfce/consulta"}},
	"SC": {{"https://hom.sat.sef.sc.gov.br/nfce/consulta", "https://hom.sat.sef.sc.gov.br/nfce/consulta"}, {"https://sat.sef.sc.gov.br/nfce/consulta", "https://sat.sef.sc.gov.br/nfce/consulta"}},
	"SE": {{"http://www.hom.nfe.se.gov.br/nfce/qrcode", "http://www.hom.nfe.se.gov.br/nfce/consulta"}, {"http://www.nfce.se.gov.br/nfce/qrcode", "http://www.nfce.se.gov.br/nfce/consulta"}},
	"SP": {{"https://www.homologacao.nfce.fazenda.sp.gov.br/qrcode", "https://www.homologacao.nfce.fazenda.sp.gov.br/NFCeConsultaPublica"}, {"https://www.nfce.fazenda.sp.gov.br/qrcode", "https://www.nfce.fazenda.sp.gov.br/NFCeConsultaPublica"}},
	"TO": {{"http://homologacao.sefaz.to.gov.br/nfce/qrcode", "http://homologacao.sefaz.to.gov.br/nfce/consulta.jsf"}, {"http://www.sefaz.to.gov.br/nfce/qrcode", "www.sefaz.to.gov.br/nfce/consulta"}},
}

// env is the index of an environment's addresses: 0 homologação, 1
// production.
func env(production bool) int {
	if production {
		return 1
	}
	return 0
}

// QRCodeURL is the state's NFC-e QR code address in the environment.
func QRCodeURL(state string, production bool) string { return nfceURLs[state][env(production)].qr }

// ConsultaURL is the state's NFC-e consultation address (urlChave) in the
// environment.
func ConsultaURL(state string, production bool) string {
	return nfceURLs[state][env(production)].consulta
}
