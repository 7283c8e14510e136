package fiscal

import (
	"bytes"
	"crypto"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/beevik/etree"
	dsig "github.com/russellhaering/goxmldsig"

	"fincom/server/certs"
)

// The signature the NF-e (Manual de Orientação do Contribuinte, 4.4) and
// the national NFS-e require: an enveloped XMLDSig of the element with
// the Id, as the last child of its parent, canonicalized with C14N 1.0,
// digested with SHA-1 and signed with RSA-SHA1, its transforms the
// enveloped signature and C14N, the signer's certificate in
// KeyInfo/X509Data, in the xmldsig default namespace (no prefix).

const dsigNS = "http://www.w3.org/2000/09/xmldsig#"

// Sign signs the element whose Id attribute is id.
func Sign(doc []byte, id string, c certs.Certificate) ([]byte, error) {
	d := etree.NewDocument()
	if err := d.ReadFromBytes(doc); err != nil {
		return nil, err
	}
	el := d.FindElement(fmt.Sprintf("//[@Id='%s']", id))
	if el == nil || el.Parent() == nil {
		return nil, fmt.Errorf("sign: no element with Id %s", id)
	}
	ctx, err := dsig.NewSigningContext(c.Key, [][]byte{c.Cert.Raw})
	if err != nil {
		return nil, err
	}
	ctx.Hash = crypto.SHA1
	ctx.Prefix = ""
	ctx.IdAttribute = "Id"
	ctx.Canonicalizer = dsig.MakeC14N10RecCanonicalizer()
	if err := ctx.SetSignatureMethod(dsig.RSASHA1SignatureMethod); err != nil {
		return nil, err
	}
	sig, err := ctx.ConstructSignature(el, true)
	if err != nil {
		return nil, err
	}
	el.Parent().AddChild(sig)
	return d.WriteToBytes()
}

// Signature errors of Verify, as the authorities name them.
var (
	ErrNoSignature  = errors.New("the document is not signed")
	ErrBadDigest    = errors.New("the digest of the signed element differs (the document changed after signing)")
	ErrBadSignature = errors.New("the signature value does not verify with the certificate")
)

// Verify checks the signature over the element with Id id and answers the
// certificate that made it.
func Verify(doc []byte, id string) (*x509.Certificate, error) {
	d := etree.NewDocument()
	if err := d.ReadFromBytes(doc); err != nil {
		return nil, err
	}
	el := d.FindElement(fmt.Sprintf("//[@Id='%s']", id))
	if el == nil || el.Parent() == nil {
		return nil, ErrNoSignature
	}
	var sig *etree.Element
	for _, c := range el.Parent().ChildElements() {
		if c.Tag == "Signature" && c.NamespaceURI() == dsigNS {
			sig = c
		}
	}
	if sig == nil {
		return nil, ErrNoSignature
	}
	signedInfo := sig.FindElement("./SignedInfo")
	ref := sig.FindElement("./SignedInfo/Reference")
	digest := sig.FindElement("./SignedInfo/Reference/DigestValue")
	value := sig.FindElement("./SignatureValue")
	certEl := sig.FindElement("./KeyInfo/X509Data/X509Certificate")
	if signedInfo == nil || ref == nil || digest == nil || value == nil || certEl == nil {
		return nil, ErrNoSignature
	}
	if ref.SelectAttrValue("URI", "") != "#"+id {
		return nil, fmt.Errorf("%w: the reference is not #%s", ErrBadDigest, id)
	}
	der, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(certEl.Text()), ""))
	if err != nil {
		return nil, fmt.Errorf("%w: certificate: %v", ErrBadSignature, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("%w: certificate: %v", ErrBadSignature, err)
	}
	c14n := dsig.MakeC14N10RecCanonicalizer()
	canonical, err := c14n.Canonicalize(el)
	if err != nil {
		return nil, err
	}
	sum := sha1.Sum(canonical)
	want, err := base64.StdEncoding.DecodeString(strings.TrimSpace(digest.Text()))
	if err != nil || !bytes.Equal(want, sum[:]) {
		return nil, ErrBadDigest
	}
	si, err := c14n.Canonicalize(signedInfo)
	if err != nil {
		return nil, err
	}
	raw, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(value.Text()), ""))
	if err != nil {
		return nil, ErrBadSignature
	}
	pub, ok := cert.PublicKey.(*rsa.PublicKey)
	if !ok {
		return nil, ErrBadSignature
	}
	siSum := sha1.Sum(si)
	if err := rsa.VerifyPKCS1v15(pub, crypto.SHA1, siSum[:], raw); err != nil {
		return nil, ErrBadSignature
	}
	return cert, nil
}
