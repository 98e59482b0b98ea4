package overrides

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// imageRef is a container image split the way Karmada's image parser does:
// [hostname/]repository[:tag][@digest].
type imageRef struct {
	hostname   string
	repository string
	tag        string
	digest     string
}

// The image reference grammar (the distribution reference grammar Karmada
// parses images with).
const (
	alphanumeric        = `[a-z0-9]+`
	separator           = `(?:[._]|__|[-]+)`
	domainNameComponent = `(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])`
	ipv6address         = `\[(?:[a-fA-F0-9:]+)\]`
	optionalPort        = `(?::[0-9]+)?`
	tagPattern          = `[\w][\w.-]{0,127}`
	digestPattern       = `[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][[:xdigit:]]{32,}`

	domainName    = domainNameComponent + `(?:\.` + domainNameComponent + `)*`
	domainAndPort = `(?:` + domainName + `|` + ipv6address + `)` + optionalPort
	pathComponent = alphanumeric + `(?:` + separator + alphanumeric + `)*`
	remoteName    = pathComponent + `(?:/` + pathComponent + `)*`
	namePattern   = `(?:` + domainAndPort + `/)?` + remoteName

	// nameTotalLengthMax is the longest accepted repository name.
	nameTotalLengthMax = 255
)

var (
	referenceRegexp      = regexp.MustCompile(`^(` + namePattern + `)(?::(` + tagPattern + `))?(?:@(` + digestPattern + `))?$`)
	anchoredTagRegexp    = regexp.MustCompile(`^` + tagPattern + `$`)
	anchoredDigestRegexp = regexp.MustCompile(`^` + digestPattern + `$`)
	// digestHex gives the encoded length of each digest algorithm a
	// reference may use.
	digestHex = map[string]int{"sha256": 64, "sha384": 96, "sha512": 128}
	lowerHex  = regexp.MustCompile(`^[a-f0-9]+$`)
)

// parseImage parses image like Karmada: the reference must be valid
// (lowercase repository, at most 255 characters, a supported digest), and
// the hostname is the first path segment when it contains '.' or ':' or is
// "localhost".
func parseImage(image string) (*imageRef, error) {
	m := referenceRegexp.FindStringSubmatch(image)
	if m == nil {
		switch {
		case image == "":
			return nil, errors.New("repository name must have at least one component")
		case referenceRegexp.MatchString(strings.ToLower(image)):
			return nil, errors.New("invalid reference format: repository name must be lowercase")
		}
		return nil, errors.New("invalid reference format")
	}
	if len(m[1]) > nameTotalLengthMax {
		return nil, fmt.Errorf("repository name must not be more than %d characters", nameTotalLengthMax)
	}
	if m[3] != "" {
		if err := validateDigest(m[3]); err != nil {
			return nil, err
		}
	}
	ref := &imageRef{tag: m[2], digest: m[3]}
	ref.hostname, ref.repository = splitHostname(m[1])
	return ref, nil
}

func validateDigest(d string) error {
	algorithm, encoded, _ := strings.Cut(d, ":")
	size, ok := digestHex[algorithm]
	switch {
	case !ok:
		return errors.New("unsupported digest algorithm")
	case len(encoded) != size:
		return errors.New("invalid checksum digest length")
	case !lowerHex.MatchString(encoded):
		return errors.New("invalid checksum digest format")
	}
	return nil
}

// splitHostname splits a repository name into hostname and the rest; the
// first segment is a hostname only if it looks like one.
func splitHostname(name string) (hostname, repository string) {
	i := strings.IndexByte(name, '/')
	if i == -1 || (!strings.ContainsAny(name[:i], ".:") && name[:i] != "localhost") {
		return "", name
	}
	return name[:i], name[i+1:]
}

// tagOrDigest is the tag if there is one, else the digest.
func (r *imageRef) tagOrDigest() string {
	if r.tag != "" {
		return r.tag
	}
	return r.digest
}

// setTagOrDigest sets a valid tag (clearing the digest) or a valid digest
// (clearing the tag); any other value, including "", changes nothing.
func (r *imageRef) setTagOrDigest(v string) {
	switch {
	case v == "":
	case anchoredTagRegexp.MatchString(v):
		r.tag, r.digest = v, ""
	case anchoredDigestRegexp.MatchString(v):
		r.tag, r.digest = "", v
	}
}

// removeTagOrDigest drops the tag, or the digest when there is no tag.
func (r *imageRef) removeTagOrDigest() {
	if r.tag != "" {
		r.tag = ""
		return
	}
	r.digest = ""
}

// String serialises [hostname/]repository plus ":tag", or "@digest" when
// there is no tag.
func (r *imageRef) String() string {
	name := r.repository
	if r.hostname != "" {
		name = r.hostname + "/" + r.repository
	}
	switch {
	case r.tag != "":
		return name + ":" + r.tag
	case r.digest != "":
		return name + "@" + r.digest
	}
	return name
}
