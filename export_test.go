package skillcat

// Hooks for the external tests of the metaschema fast path (metaschema.go).

// MetaValid is metaValid.
var MetaValid = metaValid

// MetaKeywordValid is metaKeywordValid.
var MetaKeywordValid = metaKeywordValid

// CompileSkillSchemaNode compiles the schema at path of root as a build
// does (the fast path first), without the cache.
func CompileSkillSchemaNode(src *Source, root *Node, path Path, member string) (*SkillSchema, Violations) {
	return compileNode(src, root, root.At(path), path, member, root.At(path).Value())
}

// CompileSkillSchemaChecked compiles the schema at path of root the
// library's way only, its metaschema check included.
func CompileSkillSchemaChecked(src *Source, root *Node, path Path, member string) (*SkillSchema, Violations) {
	return compileChecked(src, root, root.At(path), path, member)
}

// DescriptorValid is descriptorValid (descriptorschema.go).
var DescriptorValid = descriptorValid

// DescriptorSchemaValid reports whether the library finds v valid against
// the descriptor schema.
func DescriptorSchemaValid(v any) bool { return descriptorSchema().Validate(v) == nil }

// SemverPattern and EmailPattern are the patterns descriptorValid matches
// with regexp.
var SemverPattern, EmailPattern = semverRE.String(), emailRE.String()

// ExamplesValid is examplesValid (examplecheck.go).
var ExamplesValid = examplesValid

// CheckSkillSchemasLibrary is checkSkillSchemasLibrary: the library's path
// that examplesValid stands in for.
var CheckSkillSchemasLibrary = checkSkillSchemasLibrary

// QuickSchemaAccepts reports whether examplesValid reads the schema doc
// (the form Node.Value gives) and, if so, whether it accepts v.
func QuickSchemaAccepts(doc, v any) (readable, accepts bool) {
	nodes := 0
	if !metaValid(doc) || !quickReadable(doc, &nodes) {
		return false, false
	}
	return true, schemaAccepts(doc, v)
}

// ParseValues is parseValues.
var ParseValues = parseValues

// NumberKeywordAccepts is numberKeywordAccepts (examplecheck.go).
var NumberKeywordAccepts = numberKeywordAccepts
