package apipix

// Spec is the document fincom holds its bodies to, for the tests of other
// packages of this directory (the Prism test).
var Spec = spec
