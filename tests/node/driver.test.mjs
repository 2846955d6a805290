// The shared driver's promises, run against @acp-fs/node through both of its entries.

import { createRequire } from 'node:module';
import { AcpFs } from '../../npm/node/index.mjs';
import { driverSuite } from './suite-driver.mjs';

driverSuite({ AcpFs, label: '@acp-fs/node (import)' });

const require = createRequire(import.meta.url);
driverSuite({ AcpFs: require('../../npm/node/index.cjs').AcpFs, label: '@acp-fs/node (require)' });
