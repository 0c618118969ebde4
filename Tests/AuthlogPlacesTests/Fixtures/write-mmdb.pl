#!/usr/bin/env perl
# Writes the MaxMind DB files the tests read, with MaxMind's own writer (Debian's
# libmaxmind-db-writer-perl): a city file and an ASN file, IPv4 and IPv6 networks in one tree.
# Usage: write-mmdb.pl CITY_PATH ASN_PATH [moved]
# With "moved", the Seoul networks are placed in Busan instead: the file an operator's monthly update brings.
use strict;
use warnings;
use MaxMind::DB::Writer::Tree;

my ($city_path, $asn_path, $variant) = @ARGV;
my $moved = defined $variant && $variant eq 'moved';
die "usage: $0 CITY_PATH ASN_PATH\n" unless defined $asn_path;

my %city_types = (
    city => 'map', country => 'map', subdivisions => ['array', 'map'], location => 'map', names => 'map',
    iso_code => 'utf8_string', en => 'utf8_string', geoname_id => 'uint32', latitude => 'double',
    longitude => 'double', accuracy_radius => 'uint16', time_zone => 'utf8_string',
);
my $city = MaxMind::DB::Writer::Tree->new(
    ip_version => 6, record_size => 28, database_type => 'GeoLite2-City', languages => ['en'],
    # The tests use documentation networks (RFC 5737, RFC 3849), which the writer drops by default.
    remove_reserved_networks => 0,
    description => { en => 'authlog test city database' },
    map_key_type_callback => sub { $city_types{ $_[0] } // die "no type for $_[0]" },
);
sub place {
    my ($country, $region, $name, $lat, $lon, $radius) = @_;
    my %record = (country => { iso_code => $country, names => { en => $country } },
        location => { latitude => $lat, longitude => $lon, accuracy_radius => $radius });
    $record{subdivisions} = [{ iso_code => $region, names => { en => $region } }] if defined $region;
    $record{city} = { names => { en => $name } } if defined $name;
    return \%record;
}
# Seoul and Tokyo over IPv4 and IPv6; a network with a country and no city; Busan with a wide radius.
my @seoul = $moved ? ('KR', '26', 'Busan', 35.1796, 129.0756, 200) : ('KR', '11', 'Seoul', 37.5665, 126.9780, 20);
$city->insert_network('175.223.10.0/24', place(@seoul));
$city->insert_network('2001:db8:10::/48', place(@seoul));
$city->insert_network('126.0.0.0/16', place('JP', '13', 'Tokyo', 35.6895, 139.6917, 10));
$city->insert_network('2001:db8:20::/48', place('JP', '13', 'Tokyo', 35.6895, 139.6917, 10));
$city->insert_network('198.51.100.0/24', { country => { iso_code => 'US', names => { en => 'US' } },
    location => { latitude => 37.751, longitude => -97.822, accuracy_radius => 1000 } });
$city->insert_network('203.0.113.0/24', place('KR', '26', 'Busan', 35.1796, 129.0756, 200));
open my $city_file, '>:raw', $city_path or die "cannot write $city_path: $!\n";
$city->write_tree($city_file);
close $city_file;

my %asn_types = (autonomous_system_number => 'uint32', autonomous_system_organization => 'utf8_string');
my $asn = MaxMind::DB::Writer::Tree->new(
    ip_version => 6, record_size => 24, database_type => 'GeoLite2-ASN', languages => ['en'],
    remove_reserved_networks => 0,
    description => { en => 'authlog test ASN database' },
    map_key_type_callback => sub { $asn_types{ $_[0] } // die "no type for $_[0]" },
);
$asn->insert_network('198.51.100.0/24', { autonomous_system_number => 64500,
    autonomous_system_organization => 'Example Hosting' });
$asn->insert_network('175.223.10.0/24', { autonomous_system_number => 64501,
    autonomous_system_organization => 'Example Mobile' });
open my $asn_file, '>:raw', $asn_path or die "cannot write $asn_path: $!\n";
$asn->write_tree($asn_file);
close $asn_file;
