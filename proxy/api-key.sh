# shellcheck shell=sh
# API keys in shell, by the edge contract (contract.sh, sourced first): the checksum
# api-keys/format.ts computes (CRC-32 of id and secret, base62, 6 characters; gzip's trailer
# holds the same CRC-32, IEEE, as zlib's crc32), and a new key from /dev/urandom. A test checks
# both against the TypeScript (test/integration/proxy-startup.test.ts).

# signet_checksum BODY: the checksum of the key's id and secret.
signet_checksum() {
  signet_crc=0
  # The four CRC bytes come little-endian: each shifts the ones before it down a byte.
  for signet_byte in $(printf '%s' "$1" | gzip -c | tail -c 8 | head -c 4 | od -An -tu1); do
    signet_crc=$(((signet_crc >> 8) | (signet_byte << 24)))
  done
  signet_sum=''
  while [ "$signet_crc" -gt 0 ]; do
    signet_sum="$(printf '%s' "$CONTRACT_BASE62" | cut -c $((signet_crc % 62 + 1)))$signet_sum"
    signet_crc=$((signet_crc / 62))
  done
  while [ "${#signet_sum}" -lt "$CONTRACT_KEY_CHECKSUM_LENGTH" ]; do signet_sum="0$signet_sum"; done
  printf '%s' "$signet_sum"
  unset signet_crc signet_byte signet_sum
}

# signet_new_key: a fresh key (uniform base62 from /dev/urandom, by rejection: tr drops other bytes).
signet_new_key() {
  signet_body=$(LC_ALL=C tr -dc '0-9A-Za-z' < /dev/urandom | head -c "$CONTRACT_KEY_CHECKED_LENGTH")
  printf '%s%s%s\n' "$CONTRACT_KEY_PREFIX" "$signet_body" "$(signet_checksum "$signet_body")"
  unset signet_body
}
