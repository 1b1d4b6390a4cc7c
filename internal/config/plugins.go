package config

import "sort"

// Plugins is the [plugins] table. Its methods give the adapter host what
// it needs of the table without the host reading config itself.
type Plugins map[string]Plugin

// Pin returns [plugins.NAME] path and sha256 ("" when not set).
func (p Plugins) Pin(name string) (path, sha256 string) {
	e := p[name]
	return e.Path, e.SHA256
}

// Names returns the names the table configures, sorted.
func (p Plugins) Names() []string {
	names := make([]string, 0, len(p))
	for n := range p {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
