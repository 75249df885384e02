// `tcompact/sources`: finding the current user's agent sessions (re-exports only).
export { discoverInputs, type DiscoverOptions, type Discovery } from './discover.js';
export { parseSourceFilters, sessionMatches, type RawSourceFilters } from './filters.js';
export { AGENT_SOURCES } from './agent-sources.js';
export {
  AGENT_NAMES,
  type AgentName,
  type AgentSource,
  type Scan,
  type Location,
  type NotRead,
  type Session,
  type SourceEnvironment,
  type SourceFilters,
  type SourceKind,
  type SourceSummary,
} from './types.js';
