import * as path from 'node:path';
import { CONFIG_FILE, defaultConfig, parseConfigText, type WaymarkConfig } from '../model/config';
import { readRegularFileSync } from './safeRead';

/** A config file larger than this is not read (it is a settings file, not data). */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * A root's `.waymark/config.yaml` through the one schema, for code that needs one setting
 * outside a scan (manifest path, memory). Missing or unreadable: the defaults. The scan reports
 * the problems; this reader only uses the valid values.
 */
export function readConfigSync(root: string): WaymarkConfig {
  const file = path.join(root, CONFIG_FILE);
  let text: string;
  try {
    text = readRegularFileSync(file, MAX_CONFIG_BYTES).toString('utf8');
  } catch {
    return defaultConfig();
  }
  return parseConfigText(file, text).config;
}
