// The CommonJS entry's view of the shared JS, bundled to shared/driver.cjs by scripts/build-node.sh.
export * from '../../shared/index.mjs';
export { diskCaveat, diskStorage } from '../../shared/node-default-disk.mjs';
