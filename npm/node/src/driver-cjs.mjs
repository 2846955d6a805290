// The CommonJS entry's view of the shared sources, bundled to shared/driver.cjs by scripts/build-node.sh.
export * from '../../shared/driver.mjs';
export { diskStorage } from '../../shared/node-default-disk.mjs';
